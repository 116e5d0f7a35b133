// randqa's Node driver: node --random-seed=SEED node_driver.js stream BACKEND SEED
//                                                              time BACKEND SEED CALLS
// (V8 takes the seed from --random-seed; the SEED argument only repeats it)
// stream: BACKEND's bytes to stdout until the reader closes the pipe.
// time:   CALLS calls of the generator in a plain loop (after as many, up to
//         10^6, to let the JIT compile it); prints the seconds.
'use strict';
const fs = require('fs');

const TWO_52 = 4503599627370496;
const TWO_48 = 281474976710656;

// v8-math-random: the 52 bits of each double, two calls packed into 13 bytes
// (the first value in the lowest bits)
function fillV8(buf) {
  for (let off = 0; off < buf.length; off += 13) {
    const a = Math.random() * TWO_52;
    const b = Math.random() * TWO_52;
    buf.writeUIntLE(a % TWO_48, off, 6);
    buf[off + 6] = Math.floor(a / TWO_48) | ((b % 16) << 4);
    buf.writeUIntLE(Math.floor(b / 16), off + 7, 6);
  }
}

const STREAMS = {'v8-math-random': [fillV8, 13 * 5041]};
// the timed loops: the call as an application writes it, summed so it cannot be dropped
function timeV8(n) {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.random();
  return sum;
}

const TIMED = {'v8-math-random': timeV8};

function writeAll(buf) {
  let done = 0;
  while (done < buf.length) {
    try {
      done += fs.writeSync(1, buf, done, buf.length - done);
    } catch (e) {
      if (e.code === 'EPIPE') process.exit(0);  // the reader has what it wanted
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

function main(argv) {
  const [mode, backend, , calls] = argv;
  if (mode === 'stream' && STREAMS[backend] && argv.length === 3) {
    const [fill, size] = STREAMS[backend];
    const buf = Buffer.alloc(size);
    for (;;) {
      fill(buf);
      writeAll(buf);
    }
  }
  if (mode === 'time' && TIMED[backend] && argv.length === 4 && /^[0-9]+$/.test(calls)) {
    TIMED[backend](Math.min(Number(calls), 1e6));  // as many calls first, to let the JIT compile the loop
    const start = process.hrtime.bigint();
    const sum = TIMED[backend](Number(calls));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (sum < 0) process.stderr.write(String(sum));  // keeps the loop's work observable
    process.stdout.write(seconds + '\n');
    return;
  }
  process.stderr.write('usage: node_driver.js stream BACKEND SEED | time BACKEND SEED CALLS\n');
  process.exit(2);
}

main(process.argv.slice(2));
