import type { CommandSpec, OptionSpec } from './commandSpec';

/** Exit codes of `toolgate undo` and `toolgate rewind`: each outcome its own. */
export const UNDO_EXIT = { undone: 0, planned: 0, conflict: 3, nothing: 4, 'not-undoable': 5 } as const;

const UNDO_OPTIONS: readonly OptionSpec[] = [
  { name: 'dry-run', description: 'print what undoing would do to each file, as a diff, and change nothing' },
  { name: 'keep', value: 'PATH', repeatable: true, description: 'a file in conflict (changed since the call): keep its current version' },
  { name: 'restore-anyway', value: 'PATH', repeatable: true, description: 'a file in conflict: put back its version from before the call anyway' },
  { name: 'json', description: 'print the report as JSON' },
];

const UNDO_DETAILS = [
  'Runs in the running gate, which writes the undo to its audit log as a call of its own (undo that call to redo).',
  'Each file must still be as the call left it; one changed since stops the undo, names the versions before the',
  'call, after it and now, and writes nothing: say --keep PATH or --restore-anyway PATH for each and run it again.',
  `Exit ${UNDO_EXIT.undone} undone (or planned, with --dry-run), ${UNDO_EXIT.conflict} conflict, ${UNDO_EXIT.nothing} nothing to undo, ${UNDO_EXIT['not-undoable']} not undoable`,
  '(a before-image dropped from the store or over 50 MB, a protected path); 2 on a bad option, an unknown call or no gate.',
].join('\n');

/** `toolgate effects`, `undo` and `rewind`. */
export const UNDO_SPECS: readonly CommandSpec[] = [
  {
    name: 'effects',
    args: 'CALL_ID',
    summary: 'print what a call changed in the workspace: each path created, modified, deleted, renamed or re-moded',
    options: [{ name: 'json', description: 'print the effects as JSON' }],
    details: 'Exit 0 when the call recorded effects, 4 when it recorded none, 2 on an unknown call or no gate.',
  },
  { name: 'undo', args: 'CALL_ID', summary: 'put back what a call changed in the workspace, after checking nothing changed it since', options: UNDO_OPTIONS, details: UNDO_DETAILS },
  {
    name: 'rewind',
    args: 'CALL_ID',
    summary: 'undo a call and every later call that touched the same files, newest first, as one plan',
    options: UNDO_OPTIONS,
    details: UNDO_DETAILS,
  },
];
