// text_stats: a pure WASM tool (no host calls): counts the lines, words, characters and bytes of a text.
import { allocBytes, fail, inputText, output } from '../lib/toolgate';
import { stringField } from '../lib/json';
import { statsFields } from '../lib/textStats';

export { abortTool } from '../lib/toolgate';

/** ABI: memory for the host to write the input into. */
export function alloc(size: i32): usize {
  return allocBytes(size);
}

/** ABI: one call: input JSON in, output JSON out. */
export function run(ptr: usize, len: i32): u64 {
  const text = stringField(inputText(ptr, len), 'text');
  if (text === null) {
    fail('the input has no "text" string');
    return 0;
  }
  return output(`{${statsFields(text)}}`);
}
