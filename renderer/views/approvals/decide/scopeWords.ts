import type { ApprovalScope } from '../../../../shared/permissions';

/** How long a scoped approval holds, in the words its button and editor use. */
export function scopeWords(scope: ApprovalScope): string {
  switch (scope.kind) {
    case 'once':
      return 'this call only';
    case 'session':
      return "for this agent session (until it ends or the gate stops)";
    case 'timed':
      return { '15m': 'for 15 minutes, for every agent', '1h': 'for 1 hour, for every agent', gate: 'until the gate stops, for every agent' }[scope.duration];
    case 'always':
      return `always: written to the ${scope.file} policy file`;
  }
}

/** The label of the button that saves the rule and approves. */
export function saveLabel(scope: ApprovalScope): string {
  switch (scope.kind) {
    case 'once':
      return 'Approve';
    case 'session':
      return 'Approve and allow for this session';
    case 'timed':
      return { '15m': 'Approve and allow for 15 min', '1h': 'Approve and allow for 1 hour', gate: 'Approve and allow until the gate stops' }[scope.duration];
    case 'always':
      return `Approve and always allow (${scope.file} policy)`;
  }
}
