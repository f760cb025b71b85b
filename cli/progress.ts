/**
 * Progress while a run streams. On a terminal (stderr is a TTY) a spinner line counts the plan
 * lines done and is redrawn under each printed line; in CI logs and pipes only the plain lines.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

export interface Progress {
  /** Prints a finished line (above the spinner, if any). */
  print(line: string): void;
  /** Counts one plan line done. */
  tick(): void;
  stop(): void;
}

export function progress(
  out: NodeJS.WriteStream,
  spinnerOut: NodeJS.WriteStream,
  label: string,
  total: number | null,
): Progress {
  let done = 0;
  if (!spinnerOut.isTTY) {
    return {
      print: (line) => out.write(`${line}\n`),
      tick: () => {
        done += 1;
      },
      stop: () => {},
    };
  }
  let frame = 0;
  const draw = () => {
    const count = total === null ? `${done} lines` : `${done}/${total} lines`;
    spinnerOut.write(`\r\x1b[2K${FRAMES[frame % FRAMES.length]} ${label}: ${count}`);
  };
  const clear = () => spinnerOut.write("\r\x1b[2K");
  const timer = setInterval(() => {
    frame += 1;
    draw();
  }, FRAME_MS);
  timer.unref();
  draw();
  return {
    print(line) {
      clear();
      out.write(`${line}\n`);
      draw();
    },
    tick() {
      done += 1;
      draw();
    },
    stop() {
      clearInterval(timer);
      clear();
    },
  };
}
