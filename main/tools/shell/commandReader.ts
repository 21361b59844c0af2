import type { Node } from 'web-tree-sitter';
import type { SubCommand } from '../../../shared/commandPreview';
import { GateError } from '../../../shared/errors';

/** Operators that join one command to the next. */
const CONNECTORS = new Set([';', '&&', '||', '|', '|&', '&']);
/** Nodes that are one simple command. */
const SIMPLE = new Set(['command', 'declaration_command', 'unset_command', 'test_command', 'variable_assignment', 'variable_assignments']);
/** Nodes that hold statements; those in NESTING run their statements somewhere else than the line itself. */
const CONTAINERS = new Set([
  'program',
  'list',
  'pipeline',
  'compound_statement',
  'subshell',
  'do_group',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'select_statement',
  'case_statement',
  'case_item',
  'negated_command',
  'function_definition',
]);
const NESTING = new Set(['subshell', 'function_definition']);
const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const HEREDOC_PARTS = new Set(['heredoc_start', 'heredoc_body', 'heredoc_end']);
/** Test expressions whose parts are listed as separate words of `[`/`[[`. */
const TEST_EXPRESSIONS = new Set(['unary_expression', 'binary_expression', 'parenthesized_expression', 'negated_expression', 'ternary_expression']);

function isStatement(node: Node): boolean {
  return SIMPLE.has(node.type) || CONTAINERS.has(node.type) || node.type === 'redirected_statement';
}

function named(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null);
}

type Redirect = SubCommand['redirects'][number];

/** Walks the syntax tree and collects the simple commands (see parseCommand.ts for what it shows and why). */
export class CommandReader {
  /** The simple commands found, in running order. */
  readonly commands: SubCommand[] = [];
  /** Commands that stem from a substitution (redirections of the command holding them do not apply). */
  private readonly substituted = new WeakSet<SubCommand>();

  /**
   * Reads a run of statements and the operators between them; returns the command a following
   * operator joins (the last one at this level). `tail` is the command before the run, if any.
   */
  sequence(nodes: readonly (Node | null)[], nested: boolean, tail?: SubCommand): SubCommand | undefined {
    let terminated = false;
    for (const node of nodes) {
      if (!node) continue;
      if (!node.isNamed) {
        if (CONNECTORS.has(node.type) && tail) {
          tail.connector = node.type;
          terminated = node.type === ';';
        }
        continue;
      }
      if (node.type === 'comment') continue;
      if (isStatement(node)) {
        // Two statements with no operator between them were on separate lines: a newline is a ';'.
        if (tail && tail.connector === undefined) tail.connector = ';';
        tail = this.statement(node, nested) ?? tail;
        terminated = false;
      } else {
        // Words around statements (for-loop values, case patterns, arithmetic) run only their substitutions.
        this.substitutionsIn(node);
      }
    }
    // A ';' that ends a run (`{ a; }`, `a;`) joins nothing; a trailing '&' still says "in the background".
    if (terminated && tail) delete tail.connector;
    return tail;
  }

  /** Reads one statement; returns the command an operator after it joins. */
  private statement(node: Node, nested: boolean): SubCommand | undefined {
    if (node.type === 'redirected_statement') return this.redirected(node, nested);
    if (node.type === 'compound_statement' && node.firstChild?.type === '((') return this.simple(node, nested, []);
    if (node.type === 'function_definition') return this.functionDefinition(node);
    if (CONTAINERS.has(node.type)) return this.sequence(node.children, nested || NESTING.has(node.type));
    return this.simple(node, nested, []);
  }

  /** A statement with redirections: they belong to its command, or to every command of a compound one. */
  private redirected(node: Node, nested: boolean): SubCommand | undefined {
    const body = named(node).find((child) => !REDIRECTS.has(child.type) && child.type !== 'comment');
    const redirectNodes = named(node).filter((child) => REDIRECTS.has(child.type));
    const redirects: Redirect[] = [];
    const continuations: Node[] = [];
    const strayWords: string[] = [];
    for (const redirect of redirectNodes) redirects.push(...this.readRedirect(redirect, continuations, strayWords));
    let tail: SubCommand | undefined;
    // `(( … ))` is a compound command too: bash refuses words after its redirection, as after a group's.
    if (!body || SIMPLE.has(body.type)) {
      tail = this.simple(body ?? node, nested, redirectNodes, redirects, body === undefined);
      // `cat 0< f`: the grammar reads the descriptor 0 as an argument; bash reads `0<` as one operator.
      const digit = body?.lastNamedChild;
      if (digit?.type === 'number' && digit.endIndex === redirectNodes[0]?.startIndex && /^[<>]/.test(redirects[0]?.op ?? '')) {
        tail.argv.pop();
        redirects[0]!.op = `${digit.text}${redirects[0]!.op}`;
      }
      // `rm > log -rf x`: the grammar hangs the words after a redirection on it; bash passes them to the command.
      if (strayWords.length > 0) {
        tail.argv.push(...strayWords);
        tail.text = node.text;
      }
    } else {
      for (const redirect of redirectNodes) this.substitutionsIn(redirect);
      const read = this.redirectedBody(body, nested);
      tail = read.tail;
      const targets = this.commands.slice(read.first).filter((command) => !this.substituted.has(command));
      for (const command of targets) command.redirects.push(...redirects.map((redirect) => ({ ...redirect })));
      if (strayWords.length > 0) {
        // `a && echo >&2 hi`: the words belong to the last command, unless that is a group, where bash has no place for them.
        if (!SIMPLE.has(read.last.type) || targets.length === 0) {
          throw new GateError('EVALIDATION', `the command is unreadable: words after the redirection of a group (${strayWords.join(' ')}) are a syntax error for bash; nothing was run`);
        }
        targets.at(-1)!.argv.push(...strayWords);
      }
    }
    // `cat <<EOF | grep x && y`: the grammar hangs the rest of the line under the here-document.
    for (const continuation of continuations) {
      tail = CONTAINERS.has(continuation.type)
        ? this.sequence(continuation.children, nested, tail)
        : this.sequence([continuation], nested, tail);
    }
    return tail;
  }

  /**
   * `f() { …; } > log`: the grammar hangs the redirections on the definition, and bash applies them to
   * every run of the body, so each command of the body carries them (as in a redirected group).
   */
  private functionDefinition(node: Node): SubCommand | undefined {
    const strayWords: string[] = [];
    const redirects = named(node)
      .filter((child) => REDIRECTS.has(child.type))
      .flatMap((redirect) => this.readRedirect(redirect, [], strayWords));
    if (strayWords.length > 0) {
      throw new GateError('EVALIDATION', `the command is unreadable: words after the redirection of a function (${strayWords.join(' ')}) are a syntax error for bash; nothing was run`);
    }
    const first = this.commands.length;
    // The redirections' own substitutions are read here too, as the words around the body.
    const tail = this.sequence(node.children, true);
    for (const command of this.commands.slice(first)) {
      if (!this.substituted.has(command)) command.redirects.push(...redirects.map((redirect) => ({ ...redirect })));
    }
    return tail;
  }

  /**
   * Reads the body of a redirected statement; returns the index of the first command its redirections
   * apply to, and the last stage they apply to. `a | b > f` and `a && b 2>&1`: the grammar hangs the redirection on the whole pipeline or
   * list, bash on its last command only (and on every command of a last `{ …; }`).
   */
  private redirectedBody(body: Node, nested: boolean, tail?: SubCommand): { tail: SubCommand | undefined; first: number; last: Node } {
    if (body.type !== 'pipeline' && body.type !== 'list') {
      const first = this.commands.length;
      return { tail: this.statement(body, nested) ?? tail, first, last: body };
    }
    const children = body.children;
    const last = children.findLastIndex((child) => child !== null && isStatement(child));
    const before = this.sequence(children.slice(0, last), nested, tail);
    if (before && before.connector === undefined) before.connector = ';';
    const inner = this.redirectedBody(children[last]!, nested, before);
    return { tail: this.sequence(children.slice(last + 1), nested, inner.tail), first: inner.first, last: inner.last };
  }

  /**
   * The redirections one redirect node makes (a here-document may carry more after its start).
   * Words the grammar hangs on it after its target go to `strayWords`: they are the command's arguments.
   */
  private readRedirect(node: Node, continuations: Node[], strayWords: string[]): Redirect[] {
    if (node.type === 'heredoc_redirect') {
      const start = named(node).find((child) => child.type === 'heredoc_start');
      const operator = node.children.find((child) => child !== null && !child.isNamed && child.type.startsWith('<<'));
      const found: Redirect[] = [{ op: operator?.type ?? '<<', target: start?.text ?? '' }];
      for (const child of node.children) {
        if (!child?.isNamed) {
          // `cat <<EOF && rm x`: the operator joining the rest of the line hangs here as well.
          if (child && CONNECTORS.has(child.type)) continuations.push(child);
        } else if (REDIRECTS.has(child.type)) found.push(...this.readRedirect(child, continuations, strayWords));
        else if (isStatement(child)) continuations.push(child);
        else if (!HEREDOC_PARTS.has(child.type) && child.type !== 'comment') strayWords.push(child.text);
      }
      return found;
    }
    const descriptor = node.childForFieldName('descriptor')?.text ?? '';
    const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
    const [target, ...rest] = named(node).filter((child) => child.type !== 'file_descriptor' && child.type !== 'comment');
    strayWords.push(...rest.map((word) => word.text));
    return [{ op: `${descriptor}${operator}`, target: target?.text ?? '' }];
  }

  /**
   * Lists one simple command. Commands in its substitutions (and those of `extraRedirects`) are
   * listed first: the shell runs them before it.
   */
  private simple(node: Node, nested: boolean, extraRedirects: Node[], redirects: Redirect[] = [], bare = false): SubCommand {
    const argv: string[] = [];
    const own: Redirect[] = [];
    if (!bare) {
      if (node.type === 'command') {
        for (const child of named(node)) {
          if (child.type === 'comment') continue;
          if (REDIRECTS.has(child.type)) own.push(...this.readRedirect(child, [], argv));
          else argv.push(child.text);
        }
      } else if (node.type === 'test_command' || (node.type === 'compound_statement' && node.firstChild?.type === '((')) {
        for (const child of node.children) if (child) argv.push(...testWords(child));
      } else if (node.type === 'variable_assignment') {
        argv.push(node.text);
      } else {
        for (const child of node.children) if (child && child.type !== 'comment') argv.push(child.text);
      }
    }
    const substitutions: string[] = [];
    const scanned = bare ? extraRedirects : [node, ...extraRedirects];
    for (const part of scanned) substitutions.push(...this.substitutionsIn(part));
    const command: SubCommand = {
      text: bare ? extraRedirects.map((redirect) => redirect.text).join(' ') : node.text,
      argv,
      redirects: [...own, ...redirects],
      substitutions,
      nested,
      runsCode: [],
    };
    this.commands.push(command);
    return command;
  }

  /** Finds the substitutions in `node` (not inside each other), lists their commands as nested; returns their texts. */
  private substitutionsIn(node: Node): string[] {
    const found: string[] = [];
    const visit = (current: Node): void => {
      if (SUBSTITUTIONS.has(current.type)) {
        found.push(current.text);
        const first = this.commands.length;
        this.sequence(current.children, true);
        for (const command of this.commands.slice(first)) this.substituted.add(command);
        return;
      }
      for (const child of named(current)) {
        // The rest of the line hung under a here-document is read as statements of its own.
        if (current.type === 'heredoc_redirect' && isStatement(child)) continue;
        visit(child);
      }
    };
    visit(node);
    return found;
  }
}

/** The words of a `[ … ]`, `[[ … ]]` or `(( … ))` part, expressions split at their operators. */
function testWords(node: Node): string[] {
  if (TEST_EXPRESSIONS.has(node.type)) return node.children.flatMap((child) => (child ? testWords(child) : []));
  return [node.text];
}
