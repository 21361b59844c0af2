import { beforeEach, describe, expect, it } from 'vitest';
import { decideShell, useUserPolicy } from './policyFixture';

// Deny and ask rules judge what bash will run, not the text: every spelling bash rewrites into
// the denied command is denied; the allow of the plain form still runs, and no allow matches more.

const policy = useUserPolicy();

describe('a deny of rm -rf * against what bash rewrites', () => {
  beforeEach(async () => {
    await policy.withUserPolicy({
      allow: ['shell_exec(rm *)', 'shell_exec(ls *)', 'shell_exec(echo *)', 'shell_exec(git *)', 'shell_exec(bash build.sh)'],
      deny: [{ rule: 'shell_exec(rm -rf *)', reason: 'recursive deletes need review' }],
    });
  });

  it.each([
    ['rm -r? victim1'],
    ['rm -[r]f victim'],
    ['rm -* victim'],
    ['rm * victim'],
    ['rm $FLAGS victim'],
    ['rm "$F" victim'],
    ['rm ${X:--rf} victim'],
    ['rm $(printf -- -rf) victim'],
    ['rm `printf -- -rf` victim'],
    ['rm $((0))rf victim'],
    ['rm {-rf,victim}'],
    ['rm {"-r",-f} victim'],
    ['set -- -rf victim; rm "$@"'],
    ['sudo {"r"m,-rf,victim}'],
  ])('a word bash decides when it runs: %j is denied', async (line) => {
    const decided = await decideShell(policy.engine(), line);
    expect(decided.decision).toBe('deny');
    expect(decided.reason).toContain('recursive deletes need review');
  });

  it.each([['rm --rec --for victim2'], ['rm --recursive --f victim'], ['rm --r --fo victim'], ['rm -R --force victim'], ['rm --force --recursive victim'], ['rm -Rf victim'], ['rm -fr victim'], ['rm -r -f victim'], ['rm -rvf victim'], ['rm -v --recursive=always -f victim']])(
    'option spellings, GNU long prefixes included: %j is denied',
    async (line) => {
      expect((await decideShell(policy.engine(), line)).decision).toBe('deny');
    },
  );

  it.each([
    ["r''m -rf victim"],
    ['"rm" -rf victim'],
    ['\\rm -rf victim'],
    ["$'\\x72m' -rf victim"],
    ["rm $'-\\x72f' victim"],
    ['/bin/rm -rf victim'],
    ['./rm -rf victim'],
    ['~/bin/rm -rf victim'],
    ['/bin/r? -rf victim'],
    ['/usr/bin/$X -rf victim'],
    ['$RM -rf victim'],
    ['IFS=,; X=rm,-rf,victim; $X'],
  ])('quote removal, paths and computed program names: %j is denied', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('deny');
  });

  it.each([
    ['command rm -rf victim'],
    ['exec rm -rf victim'],
    ['env -i rm -rf victim'],
    ['nice -n 5 rm -rf victim'],
    ['timeout -s KILL 5 rm -rf victim'],
    ['echo victim | xargs rm -rf'],
    ['echo -rf victim | xargs rm'],
    ['printf "%s\\n" -r -f victim | xargs -n 3 rm'],
    ['sudo -u root rm -rf victim'],
    ['find . -exec rm -rf {} +'],
    ['strace -f rm -rf victim'],
    ['busybox rm -rf victim'],
  ])('wrappers, known or not: %j is denied', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('deny');
  });

  it.each([
    ["bash -c 'rm -rf victim'"],
    ['sh -c "rm -rf victim"'],
    ["eval 'rm -rf victim'"],
    ['eval rm -rf victim'],
    ["su -c 'rm -rf victim'"],
    ["trap 'rm -rf victim' EXIT"],
    ["alias ls='rm -rf victim'"],
    ['watch rm -rf victim'],
    ['ssh host rm -rf victim'],
    ["env -S 'rm -rf victim'"],
    ["bash <<< 'rm -rf victim'"],
    ['bash <<EOF\nrm -rf victim\nEOF'],
    ['eval "$CMD"'],
    ['sh -c "$C"'],
    ["find . -exec sh -c 'rm -rf {}' \\;"],
    ["bash -c \"bash -c 'rm -rf victim'\""],
    ["git -c alias.x='!rm -rf victim' x"],
    ['f() { rm -rf "$@"; }; f victim'],
    ["GIT_SSH_COMMAND='rm -rf victim' git fetch"],
    ["export PAGER='rm -rf victim'; git log"],
    ["source /dev/stdin <<< 'rm -rf victim'"],
    ["printf 'r%s -rf victim' m | sh"],
    ["bash < <(printf 'r%s -rf victim' m)"],
    ["source <(printf 'r%s -rf victim' m)"],
    ['bash -s < script.sh'],
    ['shopt -s expand_aliases\nalias ls=rm\nls -rf victim'],
    ['hash -p /bin/rm ls; ls -rf victim'],
    ["ssh -o ProxyCommand='rm -rf victim' host"],
    ["scp -oProxyCommand='rm -rf victim' a host:b"],
    ["rsync -e 'rm -rf victim' a host:b"],
    ["tar -cf a.tar --to-command='rm -rf victim' x"],
    ['tar -cf a.tar --checkpoint=1 --checkpoint-action=exec="rm -rf victim" x'],
  ])('shell text handed over, aliases and functions: %j is denied', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('deny');
  });

  it.each([['rm victim3/file'], ['rm -f a.txt'], ['rm -r build'], ['rm ./*'], ['rm -- *'], ['rm *.log'], ['rm -f *.o build/*'], ['rm "$DIR"/x'], ['ls *.txt'], ['ls -la'], ['echo "rm -rf x"'], ['git commit -m "rm -rf x"'], ['bash build.sh'], ['ls bash'], ['echo sh | ls'], ['ls -l bin/sh']])(
    'the plain forms still run: %j is allowed',
    async (line) => {
      expect((await decideShell(policy.engine(), line)).decision).toBe('allow');
    },
  );

  it.each([["bash -c 'echo hi'"], ["bash <<< 'echo hi'"], ["eval 'echo hi'"]])('shell text that does not delete is not denied: %j asks, as no allow covers shell text', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('ask');
  });
});

describe('a deny of git push * against what git runs', () => {
  beforeEach(async () => {
    await policy.withUserPolicy({ allow: ['shell_exec(git *)'], deny: [{ rule: 'shell_exec(git push *)', reason: 'pushes need review' }] });
  });

  it.each([
    ['git send-pack origin main'],
    ['git http-push https://example.com/r.git main'],
    ['git ${X:-push} origin'],
    ['git "$SUB" origin'],
    ['git -c k=v push'],
    ['git -C dir push'],
    ['git --git-dir=.git push'],
    ['git --git-dir .git --work-tree . push'],
    ['git --no-pager -p push'],
    ['git -c alias.p=push p origin'],
    ["git -c alias.p='!git push' p"],
    ['git config alias.p push && git p origin'],
    ['/usr/lib/git-core/git-push origin'],
    ['git-send-pack origin main'],
  ])('%j is denied', async (line) => {
    const decided = await decideShell(policy.engine(), line);
    expect(decided.decision).toBe('deny');
    expect(decided.reason).toContain('pushes need review');
  });

  it.each([['git status'], ['git log --oneline -n 5'], ['git fetch origin'], ['git pull'], ['git commit -m "git push later"'], ['git -C dir status']])('%j is allowed', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('allow');
  });
});

describe('a deny of npm publish * against how npm reads its command', () => {
  beforeEach(async () => {
    await policy.withUserPolicy({ allow: ['shell_exec(npm *)'], deny: ['shell_exec(npm publish *)', 'shell_exec(npm uninstall *)'] });
  });

  it.each([['npm publ'], ['npm pub --access public'], ['npm --loglevel=silent publish'], ['npm rm left-pad'], ['npm r left-pad'], ['npm un left-pad'], ['npm unin left-pad']])('%j is denied', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('deny');
  });

  it.each([['npm test'], ['npm install'], ['npm ls']])('%j is allowed', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('allow');
  });
});

describe('a rule written with long options', () => {
  it('holds the short, bundled and shortened spellings, and stays exact without a *', async () => {
    await policy.withUserPolicy({ allow: ['shell_exec(rm *)', 'shell_exec(git *)'], deny: ['shell_exec(rm --recursive --force *)', 'shell_exec(git push --force *)', 'shell_exec(git clean -fdx)'] });
    for (const line of ['rm -rf x', 'rm -Rf x', 'rm --rec --for x', 'rm -r --fo x', 'git push -f', 'git push --forc origin', 'git send-pack --force ../r main', 'git clean -xdf', 'git clean -f -d -x', 'git clean --force -dx']) {
      expect((await decideShell(policy.engine(), line)).decision, line).toBe('deny');
    }
    for (const line of ['rm -r x', 'rm -f x', 'git push origin', 'git clean -fd', 'git clean -fdx -e keep']) {
      expect((await decideShell(policy.engine(), line)).decision, line).toBe('allow');
    }
  });
});

describe('an option value glued to its option', () => {
  it('counts as the word a rule names, with or without a *', async () => {
    await policy.withUserPolicy({ allow: ['shell_exec(curl *)', 'shell_exec(git *)'], deny: ['shell_exec(curl -X DELETE *)', 'shell_exec(curl -X PUT https://x)', 'shell_exec(git push origin *)'] });
    for (const line of ['curl -XDELETE https://x', 'curl --request=DELETE https://x', 'curl --req DELETE https://x', 'curl -sXDELETE https://x', 'curl -XPUT https://x', 'curl --request=PUT https://x', 'git push --repo=origin']) {
      expect((await decideShell(policy.engine(), line)).decision, line).toBe('deny');
    }
    for (const line of ['curl -XGET https://x', 'curl https://x', 'curl -XPUT https://y', 'git push upstream']) expect((await decideShell(policy.engine(), line)).decision, line).toBe('allow');
  });
});

describe('an ask rule reads the same way', () => {
  it('asks for a dodged spelling instead of allowing it', async () => {
    await policy.withUserPolicy({ allow: ['shell_exec(rm *)'], ask: ['shell_exec(rm --recursive *)'] });
    expect((await decideShell(policy.engine(), 'rm --rec victim')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'rm -R? victim')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'rm victim/file')).decision).toBe('allow');
  });
});

describe('an allow never matches more because of run-time words', () => {
  beforeEach(async () => {
    await policy.withUserPolicy({ allow: ['shell_exec(git status)', 'shell_exec(echo hi)', 'shell_exec(rm victim)', 'shell_exec(ls *)', 'shell_exec(touch *)'] });
  });

  it.each([['git $X'], ['git ${X:-status}'], ['git "$X"'], ['git stat?s'], ['ech? hi'], ['echo h*'], ['rm ~'], ['rm {victim,other}'], ['$CMD status'], ['l? -la']])(
    '%j is not allowed',
    async (line) => {
      expect((await decideShell(policy.engine(), line)).decision).not.toBe('allow');
    },
  );

  it('a trailing * still takes any word, run-time ones included (a read of one asks: it may lie outside the workspace)', async () => {
    expect((await decideShell(policy.engine(), 'touch *.txt $NEW')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'ls *.txt $DIR')).rule).toBe('outside-workspace');
  });
});
