// tests/import/ort_shapes.js MODEL.onnx INPUTS.json OUT.json
// Runs MODEL (every value made a graph output by ort_oracle.py) with ONNX
// Runtime (npm onnxruntime-node, CPU) on zero-filled inputs of the dims in
// INPUTS.json ({name: {type, dims}}) and writes each output's type and
// dims to OUT.json.  The oracle of planwrap's shape inference.
"use strict";
const fs = require("fs");
const ort = require("onnxruntime-node");

const arrays = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
  int32: Int32Array, int16: Int16Array, int8: Int8Array, uint8: Uint8Array,
  bool: Uint8Array, float16: Uint16Array,
};

async function main() {
  const [model, inputsPath, outPath] = process.argv.slice(2);
  const inputs = JSON.parse(fs.readFileSync(inputsPath, "utf8"));
  const session = await ort.InferenceSession.create(model);
  const feeds = {};
  for (const [name, spec] of Object.entries(inputs)) {
    const n = spec.dims.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor(spec.type, new arrays[spec.type](n),
                                 spec.dims);
  }
  const results = await session.run(feeds);
  const out = {};
  for (const [name, t] of Object.entries(results))
    out[name] = { type: t.type, dims: Array.from(t.dims, Number) };
  fs.writeFileSync(outPath, JSON.stringify(out));
  console.log(`${Object.keys(out).length} values run by ONNX Runtime`);
}
main().catch((e) => { console.error(`ort_shapes: ${e}`); process.exit(1); });
