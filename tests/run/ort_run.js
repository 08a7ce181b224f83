#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (the npm package onnxruntime-node) on the CPU, as
// an independent oracle for `cnnmap run`.
//
//   node tests/run/ort_run.js MODEL IN.npy OUT.npy [--output NAME]... [--per-frame] [--time]
//                             [--warmup] [--opt-level disabled|basic|extended|all]
//   node tests/run/ort_run.js --version
//
// - One thread (intraOpNumThreads 1, interOpNumThreads 1, sequential execution) and graph
//   optimisations disabled (graphOptimizationLevel 'disabled'), so that ORT computes every
//   node as the file says instead of fused kernels (Conv+Relu, QDQ folding, ...).
// - The batch is the first dimension of IN. When the model's first input has a symbolic
//   (dynamic) first dimension the whole batch runs at once; otherwise (or with
//   --per-frame) each frame IN[i:i+1] runs on its own and the outputs are concatenated
//   along the first dimension.
// - IN feeds the model's only input (converted to its declared element type); OUT
//   receives the first graph output, or the output NAME, as .npy version 1.0. With more
//   than one --output, OUT is a directory that receives 0.npy, 1.npy, ... in the order
//   of the options.
// - --time prints "frames N seconds S" (S: the time spent in session.run, summed over
//   the frames) on stderr, for bench/run_run.sh; --warmup runs the first frame (or the
//   batch) once before, untimed. --opt-level sets another graph optimisation level, for
//   benchmarks only (the oracle is the model as written: 'disabled').
//
// onnxruntime-node is found in, in order: $CM_NODE_MODULES, tests/run/node_modules,
// <repo>/build/node/node_modules (where scripts/deps.sh installs it) and Node's own search
// path. Exit status: 0 success, 1 usage error, 2 bad input,
// 3 onnxruntime-node is not installed, 4 ORT failed.
'use strict';

const fs = require('fs');
const path = require('path');

function die(code, msg) {
  process.stderr.write(`ort_run.js: ${msg}\n`);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------
// numpy .npy files (format versions 1.0, 2.0 and 3.0 read; 1.0 written, 2.0 when the
// header does not fit 1.0's 16-bit length). Little-endian, C order only.

// descr -> [ORT tensor type, bytes per element, typed array constructor]
const NPY_TYPES = {
  '<f4': ['float32', 4, Float32Array],
  '<f8': ['float64', 8, Float64Array],
  '|i1': ['int8', 1, Int8Array],
  '|u1': ['uint8', 1, Uint8Array],
  '<i2': ['int16', 2, Int16Array],
  '<u2': ['uint16', 2, Uint16Array],
  '<i4': ['int32', 4, Int32Array],
  '<u4': ['uint32', 4, Uint32Array],
  '<i8': ['int64', 8, BigInt64Array],
  '<u8': ['uint64', 8, BigUint64Array],
  '|b1': ['bool', 1, Uint8Array],
};
// numpy also writes these spellings for one-byte types.
const NPY_ALIASES = {
  '<i1': '|i1', '<u1': '|u1', '<b1': '|b1', 'i1': '|i1', 'u1': '|u1', 'b1': '|b1',
};
const ORT_TO_DESCR = {};
for (const [descr, [type]] of Object.entries(NPY_TYPES)) ORT_TO_DESCR[type] = descr;

function readNpy(file) {
  let buf;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    die(2, `${file}: ${e.message}`);
  }
  const bad = (what) => die(2, `${file}: not a .npy file this reader handles: ${what}`);
  if (buf.length < 10 || buf[0] !== 0x93 || buf.toString('latin1', 1, 6) !== 'NUMPY') {
    bad('bad magic');
  }
  const major = buf[6];
  let hlen;
  let off;
  if (major === 1) {
    hlen = buf.readUInt16LE(8);
    off = 10;
  } else if (major === 2 || major === 3) {
    if (buf.length < 12) bad('truncated header');
    hlen = buf.readUInt32LE(8);
    off = 12;
  } else {
    bad(`version ${major}`);
  }
  if (off + hlen > buf.length) bad('truncated header');
  const header = buf.toString(major === 3 ? 'utf8' : 'latin1', off, off + hlen);
  const descrM = header.match(/'descr'\s*:\s*'([^']*)'/);
  const fortranM = header.match(/'fortran_order'\s*:\s*(True|False)/);
  const shapeM = header.match(/'shape'\s*:\s*\(([^)]*)\)/);
  if (!descrM || !fortranM || !shapeM) bad(`header ${JSON.stringify(header)}`);
  let descr = descrM[1];
  descr = NPY_ALIASES[descr] || descr;
  if (!(descr in NPY_TYPES)) {
    bad(`dtype ${descrM[1]} (little-endian float, int, uint and bool only)`);
  }
  if (fortranM[1] === 'True') bad('Fortran order');
  const dims = shapeM[1].split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const shape = dims.map((s) => {
    if (!/^\d+$/.test(s)) bad(`shape (${shapeM[1]})`);
    return Number(s);
  });
  const [type, size, Ctor] = NPY_TYPES[descr];
  const count = shape.reduce((a, b) => a * b, 1);
  const dataOff = off + hlen;
  if (buf.length - dataOff !== count * size) {
    bad(`data holds ${buf.length - dataOff} bytes, shape (${shape}) of ${descr} ` +
        `needs ${count * size}`);
  }
  // Copy into a fresh, aligned buffer (the file's data offset need not be aligned).
  const bytes = new Uint8Array(count * size);
  buf.copy(bytes, 0, dataOff);
  let data = new Ctor(bytes.buffer);
  if (type === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
  return { type, shape, data };
}

function writeNpy(file, type, shape, data) {
  const descr = ORT_TO_DESCR[type];
  if (!descr) die(4, `${file}: cannot write an output of type ${type}`);
  const shapeStr = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  let pre = 10; // magic (6) + version (2) + header length (2)
  let major = 1;
  // Pad with spaces so that the data starts on a multiple of 64 bytes, newline last.
  let total = Math.ceil((pre + header.length + 1) / 64) * 64;
  if (total - pre > 0xffff) {
    major = 2;
    pre = 12;
    total = Math.ceil((pre + header.length + 1) / 64) * 64;
  }
  header = header + ' '.repeat(total - pre - header.length - 1) + '\n';
  const head = Buffer.alloc(pre);
  head[0] = 0x93;
  head.write('NUMPY', 1, 'latin1');
  head[6] = major;
  head[7] = 0;
  if (major === 1) head.writeUInt16LE(header.length, 8);
  else head.writeUInt32LE(header.length, 8);
  let body;
  if (type === 'bool') body = Buffer.from(Uint8Array.from(data, (v) => (v ? 1 : 0)));
  else body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // Write atomically: a temporary file next to OUT, then rename.
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
    fs.renameSync(tmp, file);
  } catch (e) {
    try { fs.unlinkSync(tmp); } catch (_) { /* nothing to remove */ }
    die(2, `${file}: ${e.message}`);
  }
}

// Converts a typed array to the typed array of ORT type `type` (value by value).
function convert(data, from, to) {
  if (from === to) return data;
  const Ctor = NPY_TYPES[ORT_TO_DESCR[to]][2];
  const big = to === 'int64' || to === 'uint64';
  const fromBig = from === 'int64' || from === 'uint64';
  const out = new Ctor(data.length);
  for (let i = 0; i < data.length; i++) {
    let v = data[i];
    if (big) v = BigInt(fromBig ? v : Math.trunc(Number(v)));
    else v = Number(v);
    out[i] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------

function loadOrt() {
  const dirs = [];
  if (process.env.CM_NODE_MODULES) dirs.push(process.env.CM_NODE_MODULES);
  dirs.push(path.join(__dirname, 'node_modules'));
  dirs.push(path.resolve(__dirname, '..', '..', 'build', 'node', 'node_modules'));
  for (const d of dirs) {
    const p = path.join(d, 'onnxruntime-node');
    if (fs.existsSync(path.join(p, 'package.json'))) return require(p);
  }
  try {
    return require('onnxruntime-node');
  } catch (e) {
    die(3, `onnxruntime-node is not installed (looked in ${dirs.join(', ')} and Node's ` +
        'search path); run scripts/deps.sh');
  }
  return null;
}

function usage(code) {
  process.stderr.write(
    'usage: node ort_run.js MODEL IN.npy OUT.npy [--output NAME]... [--per-frame] [--time]\n' +
    '                  [--warmup] [--opt-level disabled|basic|extended|all]\n' +
    '       node ort_run.js --version\n');
  process.exit(code);
}

async function main() {
  const args = process.argv.slice(2);
  const pos = [];
  const outputNames = [];
  let perFrame = false;
  let timing = false;
  let warmup = false;
  let optLevel = 'disabled';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--output') {
      if (i + 1 >= args.length) usage(1);
      outputNames.push(args[++i]);
    } else if (a === '--per-frame') perFrame = true;
    else if (a === '--time') timing = true;
    else if (a === '--warmup') warmup = true;
    else if (a === '--opt-level') {
      if (i + 1 >= args.length) usage(1);
      optLevel = args[++i];
      if (!['disabled', 'basic', 'extended', 'all'].includes(optLevel)) usage(1);
    }
    else if (a === '--help' || a === '-h') usage(0);
    else if (a === '--version') {
      // The onnxruntime-node version, or exit status 3 when it is not installed.
      const ort = loadOrt();
      const v = ort.env.versions;
      process.stdout.write(`onnxruntime-node ${v.node || v.common}\n`);
      return;
    }
    else if (a.startsWith('-')) usage(1);
    else pos.push(a);
  }
  if (pos.length !== 3) usage(1);
  const [modelPath, inPath, outPath] = pos;
  const input = readNpy(inPath);
  if (input.shape.length < 1 || input.shape[0] < 1) {
    die(2, `${inPath}: needs a batch dimension of at least 1`);
  }

  const ort = loadOrt();
  let session;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: optLevel,
      enableCpuMemArena: false,
      logSeverityLevel: 3,
    });
  } catch (e) {
    die(2, `${modelPath}: ${e.message}`);
  }
  if (session.inputNames.length !== 1) {
    die(2, `${modelPath}: has ${session.inputNames.length} inputs (${session.inputNames}); ` +
        'one is supported');
  }
  const inName = session.inputNames[0];
  const meta = (session.inputMetadata || [])[0];
  const inType = meta && meta.isTensor ? meta.type : 'float32';
  const dynamicBatch = !!(meta && meta.isTensor && meta.shape.length > 0 &&
                          typeof meta.shape[0] !== 'number');
  if (outputNames.length === 0) outputNames.push(session.outputNames[0]);
  for (const name of outputNames) {
    if (!session.outputNames.includes(name)) {
      die(2, `${modelPath}: no graph output named ${name} (outputs: ${session.outputNames})`);
    }
  }

  const data = convert(input.data, input.type, inType);
  const batch = input.shape[0];
  const frameShape = [1, ...input.shape.slice(1)];
  const frameLen = data.length / batch;
  const chunks = []; // [start, count]
  if (dynamicBatch && !perFrame) chunks.push([0, batch]);
  else for (let i = 0; i < batch; i++) chunks.push([i, 1]);

  // Per output: the frames' data, the shape after the first dimension, the type.
  const results = outputNames.map(() => ({ parts: [], shape: null, type: null }));
  let seconds = 0;
  if (warmup) {
    const [start, count] = chunks[0];
    const shape = count === 1 ? frameShape : input.shape;
    const view = data.subarray(start * frameLen, (start + count) * frameLen);
    try {
      await session.run({ [inName]: new ort.Tensor(inType, view, shape) }, outputNames);
    } catch (e) {
      die(4, `${modelPath}: ${e.message}`);
    }
  }
  for (const [start, count] of chunks) {
    const shape = count === 1 ? frameShape : input.shape;
    const view = data.subarray(start * frameLen, (start + count) * frameLen);
    const tensor = new ort.Tensor(inType, view, shape);
    let result;
    const t0 = process.hrtime.bigint();
    try {
      result = await session.run({ [inName]: tensor }, outputNames);
    } catch (e) {
      die(4, `${modelPath}: ${e.message}`);
    }
    seconds += Number(process.hrtime.bigint() - t0) / 1e9;
    outputNames.forEach((name, k) => {
      const out = result[name];
      const r = results[k];
      if (out.dims.length < 1 || out.dims[0] !== count) {
        die(4, `${modelPath}: output ${name} has shape [${out.dims}], expected first ` +
            `dimension ${count}`);
      }
      if (r.shape === null) {
        r.shape = out.dims.slice(1);
        r.type = out.type;
      } else if (r.shape.join() !== out.dims.slice(1).join() || r.type !== out.type) {
        die(4, `${modelPath}: frames give outputs ${name} of different shapes or types`);
      }
      r.parts.push(out.data);
    });
  }
  if (outputNames.length > 1) {
    try {
      fs.mkdirSync(outPath, { recursive: true });
    } catch (e) {
      die(2, `${outPath}: ${e.message}`);
    }
  }
  results.forEach((r, k) => {
    const descr = ORT_TO_DESCR[r.type];
    if (!descr) die(4, `${modelPath}: output type ${r.type} is not supported`);
    const Ctor = NPY_TYPES[descr][2];
    const all = new Ctor(r.parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of r.parts) {
      all.set(p, o);
      o += p.length;
    }
    const file = outputNames.length > 1 ? path.join(outPath, `${k}.npy`) : outPath;
    writeNpy(file, r.type, [batch, ...r.shape], all);
  });
  if (timing) process.stderr.write(`frames ${batch} seconds ${seconds.toFixed(6)}\n`);
}

main().catch((e) => die(4, e && e.stack ? e.stack : String(e)));
