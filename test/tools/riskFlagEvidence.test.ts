import { describe, expect, it } from 'vitest';
import type { RiskFlag, RiskFlagKind } from '../../shared/commandPreview';
import { parseCommand } from '../../main/tools/shell/parseCommand';
import { riskFlagsOf } from '../../main/tools/shell/riskFlags';

/**
 * The badges that lead a shell prompt, with what raised each: which spellings of a risky command
 * raise them, which ordinary ones do not, and the evidence a person reads beside them.
 */

const place = { workspace: '/work/ws', cwd: '/work/ws' };

async function flags(line: string): Promise<RiskFlag[]> {
  return riskFlagsOf(await parseCommand(line), place);
}
async function kinds(line: string): Promise<RiskFlagKind[]> {
  return (await flags(line)).map((flag) => flag.kind);
}
async function evidenceOf(line: string, kind: RiskFlagKind): Promise<string[] | undefined> {
  return (await flags(line)).find((flag) => flag.kind === kind)?.evidence;
}

describe('privilege and background', () => {
  it('are raised by the program or by a wrapper in front of it, with the sub-command as evidence', async () => {
    expect(await evidenceOf('sudo -u me ls', 'privilege')).toEqual(['sudo -u me ls']);
    expect(await evidenceOf('nice -n 5 sudo ls', 'privilege')).toEqual(['nice -n 5 sudo ls']);
    expect(await evidenceOf('runuser -u me ls', 'privilege')).toEqual(['runuser -u me ls']);
    expect(await evidenceOf('nohup ./server', 'background')).toEqual(['nohup ./server']);
    expect(await evidenceOf('time nohup ./server', 'background')).toEqual(['time nohup ./server']);
    expect(await evidenceOf('./server & echo started', 'background')).toEqual(['./server &']);
    expect(await evidenceOf('bg %1', 'background')).toEqual(['bg %1']);
    expect(await kinds('ls && echo done')).toEqual([]);
    expect(await kinds('nice -n 5 time ls')).toEqual([]);
  });
});

describe('an environment prefix', () => {
  it('of a program is raised; a bare assignment only when it steers later commands', async () => {
    expect(await evidenceOf('FOO=1 ls', 'environment-prefix')).toEqual(['FOO=1']);
    expect(await kinds('FOO=1')).toEqual([]);
    expect(await evidenceOf('LD_PRELOAD=./x.so', 'environment-prefix')).toEqual(['LD_PRELOAD=./x.so']);
    expect(await evidenceOf('PATH+=:.', 'environment-prefix')).toEqual(['PATH+=:.']);
  });
});

describe('the network', () => {
  it('is reached by network programs, git’s remote verbs, package installs and package runners', async () => {
    for (const line of ['nc -l 8080', 'rsync -a x host:y', 'git fetch', 'git -c x=y pull', 'git -C . push', 'pip install requests', 'docker pull alpine', 'yarn add left-pad', 'npm --silent install x', 'curl -s x |& cat', 'pnpx cowsay', 'bunx cowsay', 'npx cowsay']) {
      expect(await kinds(line), line).toContain('network');
    }
    for (const line of ['git log', 'git', 'npm run build', 'npm', 'pip list', 'cat notes.txt', 'echo pull', 'make fetch']) {
      expect(await kinds(line), line).not.toContain('network');
    }
  });

  it('names what reached it, redirections included', async () => {
    expect(await evidenceOf('curl -s x > page.html', 'network')).toEqual(['curl -s x > page.html']);
    expect(await evidenceOf('cat < /dev/tcp/10.0.0.1/80', 'network')).toEqual(['cat < /dev/tcp/10.0.0.1/80']);
  });
});

describe('recursive deletes', () => {
  it('rm -r in any spelling before --, find -delete, git clean -d', async () => {
    for (const line of ['rm -r -- x', 'rm --dir empty', 'rm -vR x', 'git clean -xdf', 'git -C . clean -d']) expect(await kinds(line), line).toContain('recursive-delete');
    for (const line of ['rm -f -- -r', 'rm -f -- -r x', 'git clean -f', 'git status -d', 'find . -name x', 'rmdir x', 'rm -f x', 'rm --preserve-root -f x', 'git clean -f --dry-run', 'make clean -d']) {
      expect(await kinds(line), line).not.toContain('recursive-delete');
    }
  });
});

describe('a download run by a shell', () => {
  it('is a download piped into a shell along the pipeline, or fed by a substitution; not one in an earlier sub-command', async () => {
    expect(await evidenceOf('curl -s x | sh', 'download-to-shell')).toEqual(['sh']);
    expect(await kinds('wget -qO- x | gunzip | bash')).toContain('download-to-shell');
    expect(await kinds('curl -s x |& sh')).toContain('download-to-shell');
    expect(await kinds('source <(curl -s x)')).toContain('download-to-shell');
    for (const line of ['curl -s x; sh', 'curl -s x && bash run.sh', 'curl -s x | cat', 'cat x | sh', 'sh <(cat x)']) {
      expect(await kinds(line), line).not.toContain('download-to-shell');
    }
  });
});

describe('writes outside the workspace', () => {
  it('are the targets of copies, changers, attribute changers, dd and output redirections, named with the path', async () => {
    expect(await evidenceOf('cp -t /etc a.txt b.txt', 'outside-workspace')).toEqual(['cp -t /etc a.txt b.txt → /etc']);
    expect(await evidenceOf('cp a.txt /etc/x', 'outside-workspace')).toEqual(['cp a.txt /etc/x → /etc/x']);
    expect(await evidenceOf('cp a.txt b.txt /etc/', 'outside-workspace')).toEqual(['cp a.txt b.txt /etc/ → /etc/']);
    expect(await evidenceOf('cp --target-directory /etc a.txt b.txt', 'outside-workspace')).toEqual(['cp --target-directory /etc a.txt b.txt → /etc']);
    expect(await evidenceOf('tee /tmp/a b.txt', 'outside-workspace')).toEqual(['tee /tmp/a b.txt → /tmp/a']);
    expect(await evidenceOf('chown me /etc/x ./y', 'outside-workspace')).toEqual(['chown me /etc/x ./y → /etc/x']);
    expect(await evidenceOf('dd if=a of=/tmp/b', 'outside-workspace')).toEqual(['dd if=a of=/tmp/b → /tmp/b']);
    expect(await evidenceOf('echo x > ~/y', 'outside-workspace')).toEqual(['echo x → ~/y']);
    expect(await evidenceOf('mkdir $HOME/x', 'outside-workspace')).toEqual(['mkdir $HOME/x → $HOME/x']);
  });

  it('are not a copy’s source, a mode, a descriptor or a path inside the workspace', async () => {
    for (const line of ['cat < /etc/hosts', 'cat notes.txt /etc/hosts', 'chown $USER notes.txt', 'echo of=/tmp/x', 'cp /etc/hosts hosts.txt', 'cp /etc/hosts', 'chmod 755 run.sh', 'echo x 2>&1', 'echo x > /dev/stderr', 'echo x >&-', 'touch ./a/../b', 'touch /work/ws/x', 'echo x > /work/ws/..x', 'dd if=/etc/hosts of=copy']) {
      expect(await kinds(line), line).not.toContain('outside-workspace');
    }
    for (const line of ['touch /work/wsx/y', 'touch ..', 'echo x > ../y']) expect(await kinds(line), line).toContain('outside-workspace');
  });
});

describe('code handed to a shell or interpreter', () => {
  it('still raises network, privilege and recursive-delete by its words, with the code as evidence', async () => {
    expect(await evidenceOf("bash -c 'curl -s x'", 'network')).toEqual(['curl -s x']);
    expect(await evidenceOf("sh -c 'cat < /dev/tcp/h/80'", 'network')).toContain('cat < /dev/tcp/h/80');
    expect(await evidenceOf("sh -c 'doas id'", 'privilege')).toEqual(['doas id']);
    expect(await evidenceOf("sh -c 'rm -fr x'", 'recursive-delete')).toEqual(['rm -fr x']);
    expect(await evidenceOf("sh -c 'rm --recursive x'", 'recursive-delete')).toEqual(['rm --recursive x']);
    expect(await evidenceOf("sh -c 'rm  -vfr x'", 'recursive-delete')).toEqual(['rm  -vfr x']);
    expect(await kinds("sh -c 'rm -f x; echo curly'")).toEqual(['runs-hidden-code']);
  });
});

describe('evidence', () => {
  it('is cut at 240 characters, and each different one is kept once', async () => {
    const long = `curl ${'x'.repeat(300)}`;
    expect(await evidenceOf(long, 'network')).toEqual([`${long.slice(0, 240)}…`]);
    expect(await evidenceOf(`curl ${'x'.repeat(235)}`, 'network')).toEqual([`curl ${'x'.repeat(235)}`]);
    expect(await evidenceOf('sudo ls; sudo ls; sudo id', 'privilege')).toEqual(['sudo ls', 'sudo id']);
  });
});
