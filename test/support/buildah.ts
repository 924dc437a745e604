/**
 * The container image under test (test/image): built by scripts/image/build.sh with buildah on the
 * local stand-in for the official Node image, run with `buildah run --isolation chroot`, which shares
 * the machine's network (so a server in the image listens on this machine: free ports, loopback
 * traffic) but not its file system. Every process of a container is a descendant of its
 * `buildah run`, found through /proc.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Why the image cannot be tested on this machine, or undefined when it can. */
export function buildahMissing(): string | undefined {
  // mmdebstrap --mode=root and buildah's storage in /var/lib/containers want root (CI's user).
  if (process.getuid?.() !== 0)
    return 'the image is built as root (mmdebstrap, buildah), and this is not root';
  const probe = spawnSync('buildah', ['--version'], { encoding: 'utf8' });
  if (probe.error === undefined && probe.status === 0) return undefined;
  return 'buildah is not installed (scripts/test-setup.sh system installs it with apt-get, as root)';
}

/** Builds (or finds, by the hash of its inputs) the image of the working tree; its name and how long it took. */
export async function buildImage(): Promise<{ image: string; seconds: number }> {
  const started = performance.now();
  try {
    const { stdout } = await run('bash', ['scripts/image/build.sh'], {
      encoding: 'utf8',
      timeout: 30 * 60_000,
      maxBuffer: 64 << 20,
    });
    const image = stdout.trim().split('\n').at(-1) ?? '';
    return { image, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`scripts/image/build.sh failed: ${e.message}\n${(e.stderr ?? '').slice(-8000)}`);
  }
}

/** What `buildah inspect` says of an image's configuration, in the docker format. */
export interface ImageConfig {
  readonly User: string;
  readonly Env: readonly string[];
  readonly Entrypoint: readonly string[];
  readonly Cmd: readonly string[];
  readonly WorkingDir: string;
  readonly Volumes?: Readonly<Record<string, unknown>>;
  readonly ExposedPorts?: Readonly<Record<string, unknown>>;
  readonly Healthcheck?: {
    readonly Test: readonly string[];
    readonly Interval: number;
    readonly Timeout: number;
    readonly StartPeriod: number;
    readonly Retries: number;
  };
}

export async function imageConfig(image: string): Promise<{ config: ImageConfig; size: number }> {
  const { stdout } = await run('buildah', ['inspect', '--type', 'image', image], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  const inspected = JSON.parse(stdout) as { Docker: { config: ImageConfig } };
  const { stdout: size } = await run('buildah', ['images', '--format', '{{.Size}}', '--noheading', image], {
    encoding: 'utf8',
  });
  return { config: inspected.Docker.config, size: Number.parseFloat(size) };
}

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Running {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<Finished>;
}

/** A working container of the image: `buildah from`, its environment set as `docker run -e` would. */
export class Container {
  private constructor(readonly name: string) {}

  static async create(image: string, env: Record<string, string> = {}): Promise<Container> {
    const name = `lockcloud-test-${process.pid}-${randomBytes(4).toString('hex')}`;
    await run('buildah', ['from', '--pull=never', '--name', name, image], { encoding: 'utf8' });
    const container = new Container(name);
    await container.setEnv(env);
    return container;
  }

  async setEnv(env: Record<string, string>): Promise<void> {
    const args = Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    if (args.length > 0) await run('buildah', ['config', ...args, this.name], { encoding: 'utf8' });
  }

  /** Starts `command` in the container (as the image's user, with its environment and working directory). */
  start(command: readonly string[], options: { stdin?: string; volumes?: readonly string[] } = {}): Running {
    const child = spawn(
      'buildah',
      [
        'run',
        '--isolation',
        'chroot',
        ...(options.volumes ?? []).flatMap((v) => ['--volume', v]),
        this.name,
        '--',
        ...command,
      ],
      { stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    const exited = new Promise<Finished>((resolve) =>
      child.once('close', (code) => resolve({ code, stdout: out, stderr: err })),
    );
    return { child, stdout: () => out, stderr: () => err, exited };
  }

  /** Runs `command` to its end (killed after `timeoutMs`). */
  async exec(
    command: readonly string[],
    options: { stdin?: string; volumes?: readonly string[]; timeoutMs?: number } = {},
  ): Promise<Finished> {
    const running = this.start(command, options);
    const timer = setTimeout(() => running.child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    try {
      return await running.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The container's root file system, mounted on this machine, while `work` runs. */
  async withRoot<T>(work: (root: string) => Promise<T> | T): Promise<T> {
    const { stdout } = await run('buildah', ['mount', this.name], { encoding: 'utf8' });
    try {
      return await work(stdout.trim());
    } finally {
      await run('buildah', ['umount', this.name], { encoding: 'utf8' });
    }
  }

  async remove(): Promise<void> {
    await run('buildah', ['rm', this.name], { encoding: 'utf8' }).catch(() => undefined);
  }
}

/** The processes under `pid` (children, grandchildren ...), read from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number): void => {
    for (const child of children.get(p) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** The command line of a process, as its arguments. */
export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return [];
  }
}

/** The real, effective, saved and file-system uids of a process. */
export function uids(pid: number): number[] {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const line = /^Uid:\s+(.*)$/m.exec(status)?.[1] ?? '';
  return line.trim().split(/\s+/).map(Number);
}

/** The process of `running` whose command line is `command` (the container's own, not buildah's). */
export function processOf(running: Running, command: readonly string[]): number | undefined {
  const pid = running.child.pid;
  if (pid === undefined) return undefined;
  return descendants(pid).find((p) => {
    const args = cmdline(p);
    // `node` is resolved on the image's PATH: /usr/local/bin/node.
    return args.length === command.length && args.slice(1).every((a, i) => a === command[i + 1]);
  });
}

/**
 * Stops what `running` runs as `docker stop` does: SIGTERM to the container's process (buildah run
 * would SIGKILL it), SIGKILL to everything after `graceMs`. How it ended.
 */
export async function stopRunning(
  running: Running,
  command: readonly string[],
  graceMs = 10_000,
): Promise<Finished> {
  if (running.child.exitCode === null && running.child.signalCode === null) {
    const pid = processOf(running, command);
    if (pid !== undefined) process.kill(pid, 'SIGTERM');
    else running.child.kill('SIGKILL');
  }
  const deadline = setTimeout(() => {
    for (const pid of descendants(running.child.pid ?? -1)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    running.child.kill('SIGKILL');
  }, graceMs);
  try {
    return await running.exited;
  } finally {
    clearTimeout(deadline);
  }
}
