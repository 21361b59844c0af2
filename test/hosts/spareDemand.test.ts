import { describe, expect, it } from 'vitest';
import type { SandboxProfile } from '../../main/hosts/sandbox';
import { SpareDemand } from '../../main/hosts/spareDemand';
import { READ_ONLY_PROFILE } from '../../main/hosts/poolOptions';

const WRITE: SandboxProfile = { writeWorkspace: true, network: false, spawnsProcesses: false };
const NETWORK: SandboxProfile = { writeWorkspace: false, network: true, spawnsProcesses: false };

describe('which profiles keep a spare process', () => {
  it('the most recently asked for, at most `spares` of them, and none asked for longer ago than idleMs', () => {
    let now = 0;
    const demand = new SpareDemand({ spares: 2, idleMs: 1000 }, () => now);
    expect(demand.wanted()).toEqual([]);
    demand.note(READ_ONLY_PROFILE);
    now = 100;
    demand.note(WRITE);
    now = 200;
    demand.note(NETWORK);
    expect(demand.wanted()).toEqual([NETWORK, WRITE]);
    now = 300;
    demand.note(READ_ONLY_PROFILE);
    expect(demand.wanted()).toEqual([READ_ONLY_PROFILE, NETWORK]);
    now = 1250;
    expect(demand.wanted()).toEqual([READ_ONLY_PROFILE]);
    now = 5000;
    expect(demand.wanted()).toEqual([]);
  });
});
