// file_stats: a WASM tool that reads a workspace file through the host and counts its lines, words,
// characters and bytes. The host applies the file tools' path checks to every read.
import { allocBytes, fail, inputText, output, readFile } from '../lib/toolgate';
import { quote, stringField } from '../lib/json';
import { statsFields } from '../lib/textStats';

export { abortTool } from '../lib/toolgate';

/** ABI: memory for the host to write the input (and files read) into. */
export function alloc(size: i32): usize {
  return allocBytes(size);
}

/** ABI: one call: input JSON in, output JSON out. */
export function run(ptr: usize, len: i32): u64 {
  const path = stringField(inputText(ptr, len), 'path');
  if (path === null) {
    fail('the input has no "path" string');
    return 0;
  }
  return output(`{"path":${quote(path)},${statsFields(readFile(path))}}`);
}
