/**
 * The container image (Containerfile, docs/container.md), as CI can test it on a machine that reaches
 * no image registry and runs no container engine: built by scripts/image/build.sh with buildah on a
 * local stand-in for the official Node image (scripts/image/build-base.sh), reused while its inputs
 * have not changed, then run with `buildah run --isolation chroot`. What the image's configuration
 * says (user, volume, ports, environment, entrypoint, health check) is read from the image and run
 * as written: the server started by the entrypoint and command answers /healthz and a command round
 * trip with the demo key it printed, as uid 10001, its data in the /data volume; the HEALTHCHECK
 * command passes while it answers and fails once it is gone; SIGTERM stops it with exit 0; the CLI's
 * other commands run in the image.
 *
 * buildah is installed by scripts/test-setup.sh (as root); on a machine where it is missing the
 * tests are skipped, saying so, except in CI, where they fail.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildahMissing,
  buildImage,
  Container,
  type ImageConfig,
  imageConfig,
  processOf,
  type Running,
  uids,
} from '../support/buildah.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/mosquitto.ts';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const missing = buildahMissing();
const ci = process.env.CI === 'true';
const UID = 10001;

describe('the container image, built with buildah and run in it', { skip: !ci && missing }, () => {
  let image: string;
  let config: ImageConfig;
  let container: Container;
  let port: number;
  let server: Running | undefined;
  let pid: number | undefined;
  let url: string;
  let apiKey: string;
  let email: string;
  const serveCommand = (): string[] => [...config.Entrypoint, ...config.Cmd];
  const healthcheck = (): string[] => {
    const test = config.Healthcheck?.Test ?? [];
    assert.equal(test[0], 'CMD', `a HEALTHCHECK run without a shell: ${JSON.stringify(test)}`);
    return test.slice(1);
  };

  let built: string;

  before(async () => {
    assert.equal(missing, undefined, `CI tests the image: ${missing}`);
    const build = await buildImage();
    image = build.image;
    const inspected = await imageConfig(image);
    config = inspected.config;
    port = await freePort();
    // As `docker run -e LOCKCLOUD_PORT=... -e LOCKCLOUD_MQTT_PORT=...`: the network is this machine's.
    container = await Container.create(image, {
      LOCKCLOUD_PORT: String(port),
      LOCKCLOUD_MQTT_PORT: String(await freePort()),
    });
    built = `image ${image}: ${inspected.size} MB; scripts/image/build.sh took ${build.seconds.toFixed(1)} s`;
  });

  after(async () => {
    if (server && server.child.exitCode === null) {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await container?.remove();
  });

  it('is configured as docs/container.md says: non-root user, /data volume, ports, health check, entrypoint', (t) => {
    t.diagnostic(built);
    assert.equal(config.User, `${UID}:${UID}`);
    assert.deepEqual(Object.keys(config.Volumes ?? {}), ['/data']);
    assert.deepEqual(Object.keys(config.ExposedPorts ?? {}).sort(), ['1884/tcp', '8080/tcp']);
    for (const line of ['LOCKCLOUD_HOST=0.0.0.0', 'LOCKCLOUD_MQTT_HOST=0.0.0.0', 'LOCKCLOUD_DATA=/data'])
      assert.ok(config.Env.includes(line), `${line} in ${config.Env.join(' ')}`);
    // The build's own settings stay in the build.
    assert.ok(
      !config.Env.some((line) => /^(NODE_EXTRA_CA_CERTS|npm_config_)/i.test(line)),
      config.Env.join(' '),
    );
    assert.deepEqual(config.Entrypoint, ['node', '/app/bin/lockcloud.js']);
    assert.deepEqual(config.Cmd, ['serve']);
    assert.equal(config.WorkingDir, '/app');
    assert.ok(config.Healthcheck, 'a HEALTHCHECK (kept by the docker image format)');
    assert.match(healthcheck().join(' '), /\/healthz/);
  });

  it('holds the build and exactly the production dependencies: no sources, no dev dependencies, no compiler, no npm cache', async () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
    };
    await container.withRoot((root) => {
      const app = join(root, 'app');
      assert.deepEqual(readdirSync(app).sort(), ['LICENSE', 'bin', 'dist', 'node_modules', 'package.json']);
      assert.equal(
        (JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { version: string }).version,
        pkg.version,
      );
      assert.ok(existsSync(join(app, 'dist/src/bin/cli.js')));
      // The dashboard's assets, copied by the build beside the JavaScript.
      assert.ok(existsSync(join(app, 'dist/src/http/dashboard/assets/dashboard.css')));
      for (const [path, entry] of Object.entries(lock.packages)) {
        if (path === '') continue;
        if (entry.dev === true)
          assert.ok(!existsSync(join(app, path)), `dev dependency ${path} in the image`);
        else if (entry.optional !== true && entry.devOptional !== true)
          assert.ok(existsSync(join(app, path)), `production dependency ${path} missing`);
      }
      const sqlite = join(app, 'node_modules/better-sqlite3');
      assert.ok(statSync(join(sqlite, 'build/Release/better_sqlite3.node')).isFile());
      assert.deepEqual(readdirSync(join(sqlite, 'build')), ['Release']);
      assert.ok(!existsSync(join(sqlite, 'deps')), "SQLite's sources are not kept");
      for (const absent of [
        'usr/bin/g++',
        'usr/bin/make',
        'usr/bin/python3',
        'root/.npm',
        'src',
        'tmp/lockcloud-build-ca.pem',
      ])
        assert.ok(!existsSync(join(root, absent)), `/${absent} in the image`);
      // `lockcloud` on the PATH, for `docker exec`.
      assert.equal(readlinkSync(join(root, 'usr/local/bin/lockcloud')), '/app/bin/lockcloud.js');
      const data = statSync(join(root, 'data'));
      assert.equal(data.uid, UID);
      assert.equal(data.mode & 0o777, 0o700);
    });
  });

  it('serves from its entrypoint and command: /healthz answers, as uid 10001, on every interface, its data in the /data volume', async () => {
    server = container.start(serveCommand());
    const running = server;
    const banner = await eventually(
      'the server to print its base URL and demo credentials',
      () => {
        if (running.child.exitCode !== null)
          throw new Error(`serve exited:\n${running.stdout()}\n${running.stderr()}`);
        return /listening on (http:\/\/\S+) +\((\w+) mode\)[\s\S]*login: +(\S+) \/ \S+\n +API key: +(\S+)\n/.exec(
          running.stdout(),
        );
      },
      { timeoutMs: 60_000, everyMs: 50 },
    );
    const [, printed = '', mode, login = '', key = ''] = banner;
    // The image listens on every interface (LOCKCLOUD_HOST=0.0.0.0); the test talks to loopback only.
    assert.equal(printed, `http://0.0.0.0:${port}`);
    assert.equal(mode, 'sandbox');
    url = `http://127.0.0.1:${port}`;
    apiKey = key;
    email = login;
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });

    pid = processOf(running, serveCommand());
    assert.ok(pid, 'the server process, under buildah run');
    assert.deepEqual(uids(pid), [UID, UID, UID, UID], 'real, effective, saved and file-system uid');
    // /data is a mount of its own (the volume), not the container's layer, and holds the store.
    const mounts = readFileSync(`/proc/${pid}/mountinfo`, 'utf8').split('\n');
    assert.ok(
      mounts.some((line) => line.split(' ')[4] === '/data'),
      'a mount on /data',
    );
    const data = `/proc/${pid}/root/data`;
    assert.deepEqual(
      readdirSync(data)
        .filter((f) => !f.endsWith('-wal') && !f.endsWith('-shm'))
        .sort(),
      ['lockcloud.sqlite', 'server.key'],
    );
    for (const file of readdirSync(data)) assert.equal(statSync(join(data, file)).uid, UID, file);
    assert.equal(statSync(join(data, 'server.key')).mode & 0o777, 0o600);
    await container.withRoot((root) =>
      assert.deepEqual(readdirSync(join(root, 'data')), [], 'nothing in the layer'),
    );
  });

  it('its HEALTHCHECK command, run in the container, passes while the server answers', async () => {
    assert.ok(server, 'the server of the previous test');
    const check = await container.exec(healthcheck(), { timeoutMs: 30_000 });
    assert.equal(check.code, 0, check.stderr);
  });

  it('a command round trip with the demo key the banner printed', async () => {
    const auth = { authorization: apiKey };
    const locks = (await (await fetch(`${url}/public/locks`, { headers: auth })).json()) as {
      device_id: string;
    }[];
    assert.ok(locks.length > 0, JSON.stringify(locks));
    const lock = locks[0]?.device_id;
    const sent = await fetch(`${url}/public/lock/${lock}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'unlock' }),
    });
    assert.equal(sent.status, 200, await sent.clone().text());
    const { task_id } = (await sent.json()) as { task_id: string };
    const result = await eventually(
      `task ${task_id} to end`,
      async () => {
        const res = await fetch(`${url}/public/action-result?task_id=${task_id}`, { headers: auth });
        const body = (await res.json()) as { status: string };
        return body.status !== 'processing' && body;
      },
      { timeoutMs: 30_000, everyMs: 50 },
    );
    assert.deepEqual(result, { status: 'terminated', task_id, successful: true });
    const state = (await (await fetch(`${url}/public/lock/${lock}`, { headers: auth })).json()) as {
      locked: boolean;
    };
    assert.equal(state.locked, false);
  });

  it('stops on SIGTERM (as `docker stop` sends it) with exit 0; its HEALTHCHECK command fails then', async () => {
    assert.ok(server && pid, 'the server of the earlier tests');
    process.kill(pid, 'SIGTERM');
    const stopped = await server.exited;
    assert.equal(stopped.code, 0, `${stopped.stdout}\n${stopped.stderr}`);
    assert.match(stopped.stdout, /"msg":"shutting down"/);
    assert.equal(stopped.stderr, '');
    server = undefined;
    const check = await container.exec(healthcheck(), { timeoutMs: 30_000 });
    assert.equal(check.code, 1, 'the health check fails when nothing answers');
  });

  it('the CLI in the image: --version, migrate and admin on the volume, admin mqtt-acl, sim --help', async () => {
    const version = await container.exec([...config.Entrypoint, '--version']);
    assert.deepEqual([version.code, version.stdout, version.stderr], [0, `${pkg.version}\n`, '']);
    // `lockcloud` on the PATH, on the data the server left in the volume.
    const migrated = await container.exec(['lockcloud', 'migrate']);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /already up to date/);
    const accounts = await container.exec(['lockcloud', 'admin', 'accounts', '--json']);
    assert.equal(accounts.code, 0, accounts.stderr);
    assert.ok((JSON.parse(accounts.stdout) as { email: string }[]).some((a) => a.email === email));
    const acl = await container.exec([
      'lockcloud',
      'admin',
      'mqtt-acl',
      '--out',
      '/data/mosquitto',
      '--cloud-users',
      '3',
      '--cloud-password',
      'image-test-cloud-password',
    ]);
    assert.equal(acl.code, 0, acl.stderr);
    const files = await container.exec([
      'sh',
      '-c',
      'stat -c "%n %u %a" /data/mosquitto/*; cat /data/mosquitto/passwd',
    ]);
    assert.equal(files.code, 0, files.stderr);
    for (const name of ['acl', 'mosquitto.conf', 'passwd'])
      assert.match(files.stdout, new RegExp(`^/data/mosquitto/${name} ${UID} 600$`, 'm'));
    for (const user of ['cloud-1', 'cloud-2', 'cloud-3'])
      assert.match(files.stdout, new RegExp(`^${user}:\\$7\\$`, 'm'));
    const sim = await container.exec(['lockcloud', 'sim', '--help']);
    assert.equal(sim.code, 0, sim.stderr);
    assert.match(sim.stdout, /Usage: lockcloud sim/);
  });
});
