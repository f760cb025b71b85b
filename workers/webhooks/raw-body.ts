/**
 * Reads a request body once, as bytes, refusing it past a limit without buffering the excess:
 * a declared Content-Length over the limit is refused before reading, and a chunked body is
 * counted as it streams.
 */
import { SponsonError } from "../../shared/errors";

export async function readRawBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function tooLarge(maxBytes: number): SponsonError {
  return new SponsonError("PAYLOAD_TOO_LARGE", `the body exceeds ${maxBytes} bytes`, {
    limitBytes: maxBytes,
  });
}
