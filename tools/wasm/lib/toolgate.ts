// The Toolgate WASM ABI for AssemblyScript tools (see docs/wasm-tools.md): the host calls
// `alloc` to place the call's input (JSON, UTF-8) in memory and `run` to get the output (JSON,
// UTF-8) back as a pointer and length packed in one u64; host calls are imports from `toolgate`.

@external("toolgate", "fail")
declare function hostFail(messagePtr: usize, messageLen: usize): void;

@external("toolgate", "read_file")
declare function hostReadFile(pathPtr: usize, pathLen: usize): u64;

/** Memory for the host to write into (the stub runtime never frees, and one call is one instance). */
export function allocBytes(size: i32): usize {
  return heap.alloc(<usize>size);
}

/** Ends the call with an error the agent reads (ERUNTIME). */
export function fail(message: string): void {
  const bytes = String.UTF8.encode(message);
  hostFail(changetype<usize>(bytes), <usize>bytes.byteLength);
}

/** Decodes the input the host placed at ptr. */
export function inputText(ptr: usize, len: i32): string {
  return String.UTF8.decodeUnsafe(ptr, <usize>len);
}

/** Encodes the output JSON and packs where it lies for the host. */
export function output(json: string): u64 {
  const bytes = String.UTF8.encode(json);
  return (<u64>changetype<usize>(bytes) << 32) | <u64>bytes.byteLength;
}

/** Reads a workspace file through the host (the manifest must declare FsRead and fs:read). */
export function readFile(path: string): string {
  const bytes = String.UTF8.encode(path);
  const packed = hostReadFile(changetype<usize>(bytes), <usize>bytes.byteLength);
  return String.UTF8.decodeUnsafe(<usize>(packed >> 32), <usize>(packed & 0xffffffff));
}

/** AssemblyScript's abort, routed to the host's fail (the build passes --use abort=...). */
export function abortTool(message: string | null, fileName: string | null, line: u32, column: u32): void {
  fail(`aborted: ${message !== null ? message : 'no message'} at ${fileName !== null ? fileName : '?'}:${line}:${column}`);
  unreachable();
}
