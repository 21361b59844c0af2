import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { fakeBridge } from './fakeBridge';

/** A started sync whose animation frames run only when the test says so, counting store updates. */
export function floodedSync() {
  const fake = fakeBridge({});
  const store = createConsoleStore('open');
  const frames: Array<() => void> = [];
  const sync = new ConsoleSync(fake.bridge, store, undefined, undefined, (run) => frames.push(run));
  sync.start();
  let updates = 0;
  store.subscribe(() => updates++);
  const runFrames = () => {
    for (const run of frames.splice(0)) run();
  };
  return { fake, store, sync, runFrames, updates: () => updates };
}
