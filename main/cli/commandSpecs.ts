import type { CommandSpec, OptionSpec } from './commandSpec';
import { NOT_RUN_EXIT_CODE } from '../hooks/hookWire';
import { UNDO_SPECS } from './undoSpecs';

/** `toolgate serve`: every option, with its default; settings.json gives the same keys. */
export const SERVE_SPEC: CommandSpec = {
  name: 'serve',
  summary: 'run the gate and its console on 127.0.0.1 until Ctrl+C',
  options: [
    { name: 'workspace', value: 'DIR', description: 'the folder tools may touch (default: $TOOLGATE_WORKSPACE, else settings.json, else the current folder)' },
    { name: 'port', value: 'N', description: 'loopback port of MCP and the console; 0 picks a free one (default 7749)' },
    { name: 'approval-timeout', value: 'SEC', description: 'seconds a prompt waits for you before it is denied (default 300)' },
    { name: 'tools', value: 'MODULE', repeatable: true, description: 'an ES module of more tools, or a tool manifest (.json: subprocess, HTTP or WASM), to load' },
    { name: 'grant', value: 'CAP', repeatable: true, description: 'a capability for tools, e.g. net:read:docs.python.org or fs:write:.vscode/**, or an allow rule, e.g. "shell_exec(npm test)"' },
    { name: 'mode', value: 'strict|standard|permissive', description: 'how calls no rule decides are treated (default standard)' },
    { name: 'read-only', description: 'refuse every tool that writes or starts programs' },
    { name: 'sandbox', value: 'auto|require|off', description: 'bubblewrap for tool processes: when it works (auto, default), always, or never' },
    { name: 'pool', value: 'N', description: 'warm tool processes to keep once a built-in tool is called (default 2; one from the moment an agent first reaches the gate, none before)' },
    { name: 'secret-env', value: 'NAME', repeatable: true, description: 'an environment variable tools may receive as $ENV.NAME' },
    { name: 'max-pending', value: 'N', description: 'prompts that may wait for you in all; past it a call gets EQUOTA (default 500)' },
    { name: 'max-pending-per-agent', value: 'N', description: 'prompts one agent session may have waiting (default 50)' },
    { name: 'checkpoint-dir', value: 'DIR', description: 'write signed audit checkpoints here, outside the state folder and the workspace (default: none)' },
    { name: 'team', value: 'URL', description: "join a team: the team's NATS server, e.g. nats://nats.example.com:4222 (needs --team-creds; default: none)" },
    { name: 'team-creds', value: 'FILE', description: "the team credentials file the team's admin gave you (docs/team.md)" },
    { name: 'keep-running', description: 'keep running when the terminal closes or the process that started it exits (for nohup, setsid, scripts and services)' },
  ],
  details: [
    'Options override $TOOLGATE_HOME/settings.json, which overrides the defaults; the console\'s',
    'Settings view shows the values in force and where each came from. Exit 2 on a bad option or',
    'settings file (nothing starts), after Ctrl+C 0. Without --keep-running the gate stops, and says',
    'why, when its terminal closes or the process that started it exits (an interrupted npx leaves',
    'no gate behind).',
  ].join('\n'),
};

/** Where `toolgate policy` reads the policy from, as the gate would. */
const POLICY_OPTIONS: readonly OptionSpec[] = [
  { name: 'workspace', value: 'DIR', description: "the workspace whose .toolgate/policy.json counts (default: the running gate's, else settings.json's, else the current folder)" },
  { name: 'mode', value: 'strict|standard|permissive', description: 'the security mode to judge in (default: settings.json, else standard)' },
  { name: 'tools', value: 'MODULE', repeatable: true, description: 'an ES module of more tools whose rules to read' },
];

/** `toolgate secret set NAME --for DEST`: where the secret may go. */
const SECRET_FOR_OPTION: OptionSpec = {
  name: 'for',
  value: 'DEST',
  repeatable: true,
  description: 'where it may go: http_fetch:HOST, server:NAME (an upstream server) or a tool (shell_exec); repeat for several. Without it, any tool that takes secrets, always asked',
};

/** Every command of the CLI, in the order the usage lists them. */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  SERVE_SPEC,
  {
    name: 'console',
    summary: 'print the console URL of the running gate again (with your console token); with --team, the team\'s prompts',
    options: [
      { name: 'team', description: 'a team console with no gate of its own: list the team\'s prompts, or answer one (team and credentials from settings.json)' },
      { name: 'team-creds', value: 'FILE', description: 'with --team: your credentials file, instead of settings.json\'s teamCreds' },
      { name: 'gate', value: 'NAME', description: 'with --team: only this gate\'s prompts' },
      { name: 'machine', value: 'HOST', description: 'with --team: only prompts from this machine' },
      { name: 'workspace', value: 'DIR', description: 'with --team: only prompts from this workspace' },
      { name: 'agent', value: 'CLIENT', description: 'with --team: only prompts from this agent (its MCP client name)' },
      { name: 'approve', value: 'GATE/ID', description: 'with --team: approve this prompt, as you (an approver)' },
      { name: 'deny', value: 'GATE/ID', description: 'with --team: deny this prompt' },
      { name: 'reason', value: 'TEXT', description: 'with --deny or --approve: why (the agent is told on deny)' },
    ],
    details: 'Exit 2 when no gate runs for $TOOLGATE_HOME. With --team: 0 listed or answered, 3 when another answer came first (it says whose).',
  },
  {
    name: 'mcp',
    summary: 'stdio MCP server that forwards to the running gate (for clients that launch a command)',
    details: 'Start the gate first (npm start, or toolgate serve). Without one, the client\'s initialize is answered with an error saying so.',
  },
  {
    name: 'call',
    args: 'TOOL [JSON]',
    summary: 'call a tool through the running gate, as an agent does',
    details: [
      'JSON is the arguments object, e.g. toolgate call write_file \'{"path":"a.txt","content":"hi"}\'.',
      'A call that needs approval waits for you in the console; toolgate call says where.',
      'Exit 0 with the result, 1 when the call failed or was denied, 2 when no gate runs or it has no such tool.',
    ].join('\n'),
  },
  {
    name: 'tools',
    runsBare: true,
    summary: 'print the tool schemas for your own agent code (reviewed manifest tools included); review the manifest tools of $TOOLGATE_HOME/tools',
    options: [
      { name: 'format', value: 'mcp|openai|anthropic', description: 'the schema dialect (default mcp)' },
      { name: 'tools', value: 'MODULE', repeatable: true, description: 'an ES module of more tools, or a tool manifest (.json), to include' },
    ],
    subcommands: [
      {
        name: 'review',
        args: 'NAME',
        summary: "show a manifest tool's source, declarations, bounds and hashes (what changed since its last review), then trust it",
        options: [{ name: 'yes', description: 'trust it without asking' }],
        details: [
          'The review pins the SHA-256 of the manifest and of the program or module it runs; a running gate applies it',
          'within a second. Exit 0 trusted (or already trusted), 1 you said no, 2 no such tool or an unreadable manifest.',
        ].join('\n'),
      },
    ],
  },
  {
    name: 'servers',
    summary: 'list, import, review, sandbox and hand back the MCP servers the gate runs as SERVER__TOOL ($TOOLGATE_HOME/servers.json)',
    subcommands: [
      {
        name: 'list',
        summary: 'print each server: transport, command or URL, sandbox; the disabled ones and the refused entries with their field',
        options: [{ name: 'json', description: 'print them as JSON' }],
        details: 'Exit 0 when every entry is sound, 1 when some entry is refused (the others still start), 2 when servers.json is not JSON.',
      },
      {
        name: 'import',
        summary: "copy a client's MCP servers into servers.json; --rewrite then points the client at Toolgate alone",
        options: [
          { name: 'from', value: 'CLIENT|FILE', description: 'claude-desktop, claude-code, cursor, or the path of a file holding "mcpServers"' },
          { name: 'project', value: 'DIR', description: "the project's config instead of the user's: DIR/.mcp.json (claude-code) or DIR/.cursor/mcp.json (cursor)" },
          { name: 'replace', description: "take the client's entry for a name servers.json already has with another (default: refuse it)" },
          { name: 'rewrite', description: "then replace the client's mcpServers with one entry running `toolgate mcp`, after a backup beside it" },
        ],
        details: [
          'Fields Toolgate does not take (alwaysAllow, autoApprove, timeout…) are dropped and listed; ${VAR} in env and',
          'header values becomes a $ENV.VAR secret. --rewrite is refused when some server would not be imported.',
          'Exit 0 imported, 1 when some server was refused (the others were imported), 2 on an unreadable config.',
        ].join('\n'),
      },
      {
        name: 'undo',
        summary: "put back a client config Toolgate rewrote, from its backup (the last rewrite, or the one --from names)",
        options: [
          { name: 'from', value: 'CLIENT|FILE', description: 'the client or file whose rewrite to undo (default: the last one)' },
          { name: 'project', value: 'DIR', description: 'with --from claude-code or cursor: that project\'s config' },
          { name: 'force', description: 'when the file changed since, put back only its mcpServers from the backup, keeping the other changes' },
        ],
        details: 'A file changed since the rewrite is refused and left as it is, unless --force. Exit 0 restored, 2 refused.',
      },
      {
        name: 'review',
        args: 'NAME',
        summary: "show a server's exact launch, each tool's definition, class and findings (a changed one beside the old), then trust them",
        options: [
          { name: 'yes', description: 'start it and trust its tools up to ELEVATED without asking (refused while a definition has findings)' },
          { name: 'accept-findings', description: 'with --yes: trust tools whose definitions have findings too' },
          { name: 'trust-all', description: 'with --yes: trust RESTRICTED and DANGEROUS tools too (--yes alone trusts up to ELEVATED)' },
          { name: 'tier', value: 'TIER', description: 'judge every tool trusted now at this tier (SAFE…DANGEROUS) instead of its suggested or earlier class' },
        ],
        details: [
          'Asks before starting a server whose launch was never approved (that also lets the gate start it), then before trusting.',
          'A running gate applies the reviews within a second. Exit 0 trusted (or nothing to trust), 1 you said no, 2 refused.',
        ].join('\n'),
      },
      {
        name: 'sandbox',
        args: 'NAME',
        summary: "choose what a stdio server may reach: network, the folders it writes and reads, the variables it gets; then approve its new launch",
        options: [
          { name: 'network', value: 'on|off', description: 'let it reach the network, or not (default: as it is)' },
          { name: 'writable', value: 'DIR', repeatable: true, description: 'add an absolute folder it may write' },
          { name: 'readable', value: 'DIR', repeatable: true, description: 'add an absolute folder it may read' },
          { name: 'env', value: 'NAME', repeatable: true, description: "add a variable of the gate's environment it gets (PATH, HOME and LANG it always gets)" },
          { name: 'no-writable', description: 'empty the writable folders first (with --writable: they are then the whole list)' },
          { name: 'no-readable', description: 'empty the readable folders first' },
          { name: 'no-env', description: 'empty the variables first' },
        ],
        details: [
          'Writes the sandbox into the server\'s entry in servers.json (nothing else of the file changes) and prints its launch.',
          'The sandbox is part of the launch, so a changed one waits for your approval: toolgate servers review NAME, or the Tools view.',
          'To drop one folder, give the list anew: --no-writable --writable /home/you/keep. Without options it shows the sandbox.',
          'Exit 0 written (or unchanged), 2 refused: an HTTP server has no sandbox, and folders must be absolute.',
        ].join('\n'),
      },
    ],
  },
  {
    name: 'audit',
    summary: 'check or read the audit log',
    subcommands: [
      {
        name: 'verify',
        summary: 'check the hash chain and the head anchor; list calls that have no end record',
        options: [
          { name: 'json', description: 'print the report as JSON' },
          { name: 'accept-missing-anchor', description: 'accept a log whose head anchor is gone, as it is (recorded in the log)' },
          { name: 'checkpoint', value: 'FILE', description: 'also check the log against this signed checkpoint: signature, origin and a consistency proof' },
          { name: 'checkpoint-dir', value: 'DIR', description: 'also check the log against every checkpoint of it in this folder, each under its key history' },
          { name: 'team', description: 'also check the log against the newest checkpoint of it the team holds (the team and credentials of settings.json)' },
          { name: 'key', value: 'VERIFIERKEY', description: 'the key you kept, NAME+HASH+KEY, that the checkpoints must be signed by (or, with a key history, that it is followed from)' },
        ],
        details: [
          'Exit 0 when intact, 1 naming the first damaged record or the missing anchor, 2 when there is no log.',
          'With --checkpoint, history rewritten with its chain and head anchor recomputed, cut or rolled back is',
          'caught too, and the first changed record is named when the .leaves file lies beside the checkpoint.',
          'Without --key, a checkpoint is checked against the key history in its folder (the key in force for',
          'its tree size, each rotation signed and recorded in the log), never the state folder\'s key alone;',
          'with no key history beside it, --key is required. A checkpoint of 0 records says "nothing signed yet"',
          'and exits 2: it vouches for nothing.',
        ].join('\n'),
      },
      {
        name: 'key',
        args: '[rotate]',
        summary: 'print the verifier key of this gate\'s audit checkpoints (NAME+HASH+KEY); rotate records a new one',
        options: [
          { name: 'checkpoint-dir', value: 'DIR', description: 'rotate: the checkpoint folder whose key changes (default: checkpointDir of settings.json)' },
          { name: 'reason', value: 'TEXT', description: 'rotate: why, kept in the rotation record' },
          { name: 'old-key', value: 'VERIFIERKEY', description: 'rotate: the key that signed a folder written before key histories' },
        ],
        details: [
          'Keep a copy of the printed key elsewhere: `audit verify --key` checks against it.',
          'A gate whose checkpoint folder holds checkpoints of its log signed by another key does not start.',
          '`audit key rotate` (the gate stopped) checks the log against the old key\'s checkpoints, makes a new',
          'key, and records the change as a key-rotated record in the log and a key history entry in the folder,',
          'signed by the new key (and the old one, when its private key is still here). Old checkpoints stay',
          'verifiable with the old key. Exit 0 rotated, 2 refused or a usage error.',
        ].join('\n'),
      },
      {
        name: 'prove',
        args: 'SEQ',
        summary: 'print an RFC 6962 inclusion proof of one record in the Merkle tree of the log',
        options: [
          { name: 'size', value: 'N', description: 'prove it in the tree of the first N records, e.g. a checkpoint\'s (default: the whole log)' },
          { name: 'json', description: 'print the proof as JSON' },
        ],
      },
      {
        name: 'list',
        summary: 'print the latest audit records, oldest of them first',
        options: [
          { name: 'limit', value: 'N', description: 'how many records (default 20)' },
          { name: 'json', description: 'print them as JSON' },
        ],
      },
      {
        name: 'replay',
        args: 'CALL_ID',
        summary: 'ask the running gate to re-run a recorded call of a pure or deterministic tool and compare the response hash',
        options: [{ name: 'json', description: 'print the report as JSON' }],
        details: 'Exit 0 same response, 1 different, 2 not replayable (the reason says why), an unknown call or no gate running.',
      },
      {
        name: 'export',
        summary: 'write the calls the filters match as JSONL or OpenTelemetry (OTLP JSON) spans',
        options: [
          { name: 'format', value: 'jsonl|otlp', description: 'one JSON object per call per line, or an OTLP/HTTP JSON trace request (default jsonl)' },
          { name: 'tool', value: 'NAME', repeatable: true, description: 'only calls of this tool' },
          { name: 'outcome', value: 'OUTCOME', repeatable: true, description: 'completed, failed, rejected, interrupted or open' },
          { name: 'decider', value: 'WHO', repeatable: true, description: 'rule, default, mode, policy, person, timeout or withdrawn' },
          { name: 'session', value: 'ID', repeatable: true, description: 'only calls of this agent session' },
          { name: 'tier', value: 'TIER', repeatable: true, description: 'SAFE, STANDARD, ELEVATED, RESTRICTED or DANGEROUS' },
          { name: 'from', value: 'TIME', description: 'calls invoked at or after this ISO 8601 time (e.g. 2026-11-23T09:00:00Z)' },
          { name: 'to', value: 'TIME', description: 'calls invoked before this ISO 8601 time' },
          { name: 'search', value: 'TEXT', description: 'text in arguments, outputs, reasons, errors or paths (literal, 3 characters or more)' },
          { name: 'call', value: 'ID', description: 'one call by its id' },
          { name: 'content', description: "include each call's arguments and result (off: what it was, how it was decided and ended, and hashes)" },
          { name: 'out', value: 'FILE', description: 'write to FILE (replaced only once complete) instead of stdout' },
        ],
        details: [
          'The same filters as the console\'s audit explorer; values of one option are OR-ed (also comma-separated),',
          'options AND-ed. Calls are written newest first, one at a time, so any number fits in flat memory.',
          'Exit 0 written, 2 on a bad option or when there is no log.',
        ].join('\n'),
      },
    ],
  },
  ...UNDO_SPECS,
  {
    name: 'team',
    summary: 'make a team on NATS JetStream: its server config and members\' credentials, then its streams',
    subcommands: [
      {
        name: 'init',
        args: 'NAME',
        summary: 'write a new team\'s nats-server config and one credentials file per member (and the admin) into a new folder',
        options: [
          { name: 'gate', value: 'NAME', repeatable: true, description: 'a gate of the team (its machine\'s member name); comma-separated or repeated' },
          { name: 'approver', value: 'NAME', repeatable: true, description: 'an approver: a console whose answers every gate follows; a gate may be one too' },
          { name: 'out', value: 'DIR', description: 'the folder to write (default: ./NAME); it must be new or empty' },
          { name: 'port', value: 'N', description: 'the server\'s client port (default 4222)' },
          { name: 'store', value: 'DIR', description: 'where the server keeps its streams (default /var/lib/nats)' },
        ],
        details: 'Each file holds secret keys: hand each to its member alone. docs/team.md walks through a setup.',
      },
      {
        name: 'setup',
        summary: 'create the team\'s streams and buckets on its running server (once, with the admin\'s credentials)',
        options: [
          { name: 'team', value: 'URL', description: 'the team\'s NATS server, e.g. nats://nats.example.com:4222' },
          { name: 'team-creds', value: 'FILE', description: 'the admin\'s credentials file from team init' },
        ],
        details: 'Leaves streams and buckets that already exist as they are.',
      },
    ],
  },
  {
    name: 'policy',
    summary: 'check, list, test and trust the policy rules the gate applies here',
    subcommands: [
      {
        name: 'check',
        args: 'TOOL JSON',
        summary: 'print the decision for one call, the rule, its layer and source, and the part it matched',
        options: [...POLICY_OPTIONS, { name: 'json', description: 'print the decision as JSON' }],
        details: 'Exit 0 allow, 1 ask, 2 deny. The tier defaults are judged without the sandbox: a gate without bubblewrap raises file tools a tier.',
      },
      { name: 'list', summary: 'print every rule in force with its layer, file and line', options: [...POLICY_OPTIONS, { name: 'json', description: 'print them as JSON' }] },
      { name: 'test', summary: "run every rule's examples (exit 1 naming the file, line and fix of each refused file)", options: POLICY_OPTIONS },
      { name: 'trust', summary: "trust the workspace's .toolgate/policy.json as it is now (it is ignored again once it changes)", options: POLICY_OPTIONS },
    ],
  },
  {
    name: 'hook',
    summary: "judge Claude Code's own tools (Bash, Edit, Write, Read, WebFetch, …) through the running gate",
    subcommands: [
      {
        name: 'claude-code',
        summary: "Claude Code's PreToolUse/PostToolUse hook: reads its input on stdin, prints the gate's answer",
        details: [
          'Prints {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow|deny|ask",…}} and exits 0.',
          'Input that is not a hook input is denied; with no gate running the answer is ask, so Claude Code asks you itself.',
          'An allowed Bash call is answered with updatedInput: a `toolgate hook run` command that runs it in the gate\'s sandbox',
          '(settings.json "claudeCodeBashInGate": false lets Claude Code run it on the host instead).',
        ].join('\n'),
      },
      {
        name: 'run',
        args: 'GRANT',
        summary: 'run the Bash call the gate allowed under GRANT in its sandbox (what the hook tells Claude Code to run)',
        options: [{ name: 'sha256', value: 'HASH', description: 'the SHA-256 of the approved command text: anything else runs nothing' }],
        details: [
          "Prints the command's stdout and stderr and exits with its exit status. Each grant runs once, only its exact",
          'approved text, and only while the gate that issued it runs. When nothing ran (no gate, an unknown, used,',
          `expired or changed grant) it says why on stderr and exits ${NOT_RUN_EXIT_CODE}; nothing ever runs outside the gate.`,
        ].join('\n'),
      },
      {
        name: 'install',
        args: 'claude-code',
        summary: "add Toolgate's hooks to ~/.claude/settings.json (or a project's), keeping everything else",
        options: [
          { name: 'project', value: 'DIR', description: "install in DIR/.claude/settings.json instead of your user settings" },
          { name: 'timeout', value: 'SEC', description: 'how long Claude Code waits for an answer (default: the approval timeout plus 60 s)' },
        ],
        details: 'Backs the file up first (<file>.toolgate-backup-<UTC time>); installing again adds nothing.',
      },
      {
        name: 'uninstall',
        args: 'claude-code',
        summary: 'remove exactly the hooks install added',
        options: [{ name: 'project', value: 'DIR', description: "remove them from DIR/.claude/settings.json instead of your user settings" }],
      },
    ],
  },
  {
    name: 'secret',
    summary: 'manage the secrets tool arguments use as $ENV.NAME',
    options: [SECRET_FOR_OPTION],
    subcommands: [
      { name: 'set', args: 'NAME', summary: 'store a secret; the value is read from stdin (at least 8 characters)', options: [SECRET_FOR_OPTION] },
      { name: 'list', summary: 'print the names of the stored secrets, never their values' },
      { name: 'remove', args: 'NAME', summary: 'delete a stored secret' },
    ],
  },
];

/** A command's spec by name; the CLI knows every name it dispatches. */
export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_SPECS.find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`no spec for command ${name}`);
  return spec;
}
