#!/usr/bin/env node
// The published package's `sponson` bin: the bundled CLI (cli/index.ts and everything it imports,
// dependencies included), so an install needs nothing else. `npm pack` builds it (prepack).
import "../dist/sponson.mjs";
