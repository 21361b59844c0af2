export declare const TIERING_FLAGS: string[];
export declare const GATE_V8_FLAGS: string[];
