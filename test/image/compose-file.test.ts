/**
 * compose.yaml, read as Compose reads it (no Compose runs on this machine: test/image/compose.test.ts
 * runs its setup job, one server and the simulator in the image instead). The scaled topology of
 * docs/deploy.md: three servers of one image on PostgreSQL, Redis and Mosquitto, one simulator; a
 * setup job whose files the broker and the simulator read at the paths it writes them; each service
 * started once what it needs is healthy or done; no secret in the file.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  type ComposeFile,
  type ComposeService,
  InterpolationError,
  interpolate,
  interpolateAll,
  loadCompose,
} from '../support/compose.ts';

const SERVERS = ['server-1', 'server-2', 'server-3'];
const LOCKCLOUD = ['setup', ...SERVERS, 'sim'];
const SECRETS = [
  'POSTGRES_PASSWORD',
  'LOCKCLOUD_SECRET_KEY',
  'MQTT_CLOUD_PASSWORD',
  'LOCKCLOUD_OWNER_PASSWORD',
];
const ENV = {
  POSTGRES_PASSWORD: 'pg-password',
  LOCKCLOUD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  MQTT_CLOUD_PASSWORD: 'cloud-password-0123456789',
  LOCKCLOUD_OWNER_PASSWORD: 'owner-password',
};

const raw = loadCompose();
const compose: ComposeFile = interpolateAll(raw, ENV);
const service = (name: string): ComposeService => {
  const found = compose.services[name];
  assert.ok(found, `no service ${name}`);
  return found;
};
/** The image's user, from the Containerfile's last USER line. */
const imageUser = [...readFileSync('Containerfile', 'utf8').matchAll(/^USER (\S+)$/gm)].at(-1)?.[1];
/** The setup job's shell script. */
const script = (): string => service('setup').command?.join('\n') ?? '';
/** `volume:/path[:ro]` of a service, as [volume, path]. */
const mountsOf = (name: string): [string, string, string | undefined][] =>
  (service(name).volumes ?? []).map((v) => {
    const [volume = '', path = '', mode] = v.split(':');
    return [volume, path, mode];
  });
/** The named volume mounted at the directory that holds `file`, in a service, and its path there. */
function volumeHolding(name: string, file: string): { volume: string; path: string } {
  const found = mountsOf(name).find(([, path]) => file.startsWith(`${path}/`));
  assert.ok(found, `${name}: no volume holds ${file}`);
  return { volume: found[0], path: found[1] };
}

describe('compose.yaml', () => {
  it('has the scaled topology: three servers, PostgreSQL, Redis, Mosquitto, one simulator, the setup job', () => {
    assert.equal(compose.name, 'lockcloud');
    assert.deepEqual(
      Object.keys(compose.services).sort(),
      ['mosquitto', 'postgres', 'redis', ...SERVERS, 'setup', 'sim'].sort(),
    );
    assert.match(service('postgres').image ?? '', /(^|\/)postgres:\d+/);
    assert.match(service('redis').image ?? '', /(^|\/)redis:\d+/);
    assert.match(service('mosquitto').image ?? '', /(^|\/)eclipse-mosquitto:2/);
  });

  it('builds one image from the Containerfile for every lockcloud service', () => {
    const images = new Set(LOCKCLOUD.map((name) => service(name).image));
    assert.equal(images.size, 1, [...images].join(', '));
    for (const name of LOCKCLOUD) {
      assert.deepEqual(service(name).build, { context: '.', dockerfile: 'Containerfile' }, name);
      assert.equal(
        service(name).entrypoint === undefined,
        name !== 'setup',
        `${name}: the image's entrypoint`,
      );
    }
    assert.ok(existsSync('Containerfile'));
    assert.deepEqual(service('sim').command?.slice(0, 1), ['sim']);
  });

  it('runs each server in production on the shared PostgreSQL and Redis, each with its own broker user', () => {
    const hostPorts = new Set<string>();
    SERVERS.forEach((name, i) => {
      const s = service(name);
      const env = s.environment ?? {};
      assert.deepEqual(s.command, ['serve'], name);
      assert.equal(env.LOCKCLOUD_MODE, 'production', name);
      assert.equal(env.DATABASE_URL, `postgres://lockcloud:${ENV.POSTGRES_PASSWORD}@postgres:5432/lockcloud`);
      assert.equal(env.REDIS_URL, 'redis://redis:6379');
      assert.equal(env.LOCKCLOUD_SECRET_KEY, ENV.LOCKCLOUD_SECRET_KEY, 'one key for every process');
      // Mosquitto takes the user name as the client id: one user per process (docs/deploy.md).
      assert.equal(env.MQTT_URL, `mqtt://cloud-${i + 1}:${ENV.MQTT_CLOUD_PASSWORD}@mosquitto:1883`);
      assert.equal(s.ports?.length, 1, name);
      const [host, inside] = (s.ports?.[0] ?? '').split(':');
      assert.equal(inside, '8080', name);
      hostPorts.add(host ?? '');
      // Above the drain's default 20 s (docs/deploy.md "Graceful shutdown"), not Compose's 10 s.
      const grace = /^(\d+)s$/.exec(s.stop_grace_period ?? '');
      assert.ok(grace && Number(grace[1]) > 20, `${name}: stop_grace_period ${s.stop_grace_period}`);
    });
    assert.equal(hostPorts.size, 3);
    const pg = service('postgres').environment ?? {};
    assert.deepEqual(
      [pg.POSTGRES_USER, pg.POSTGRES_DB, pg.POSTGRES_PASSWORD],
      ['lockcloud', 'lockcloud', ENV.POSTGRES_PASSWORD],
    );
  });

  it('starts each service once what it needs is healthy or done; the conditions name checks that exist', () => {
    const lockcloudImage = service('server-1').image;
    for (const [name, s] of Object.entries(compose.services)) {
      for (const [needed, { condition }] of Object.entries(s.depends_on ?? {})) {
        const target = service(needed);
        if (condition === 'service_healthy') {
          // Its own check, or the image's HEALTHCHECK (the lockcloud image's serves /healthz).
          const own = target.healthcheck;
          assert.ok(own?.disable !== true, `${name} waits for ${needed} to be healthy, whose check is off`);
          assert.ok(own?.test !== undefined || target.image === lockcloudImage, `${needed}: no health check`);
        } else {
          assert.equal(condition, 'service_completed_successfully', `${name} -> ${needed}`);
          assert.equal(target.restart, 'no', `${needed} is a job: it must not be restarted`);
        }
      }
    }
    for (const name of SERVERS)
      assert.deepEqual(service(name).depends_on, {
        setup: { condition: 'service_completed_successfully' },
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        mosquitto: { condition: 'service_healthy' },
      });
    assert.deepEqual(Object.keys(service('mosquitto').depends_on ?? {}), ['setup']);
    assert.deepEqual(Object.keys(service('setup').depends_on ?? {}), ['postgres']);
    assert.deepEqual(Object.keys(service('sim').depends_on ?? {}).sort(), ['mosquitto', 'setup']);
    // Neither serves HTTP: the image's /healthz check would call them unhealthy.
    for (const name of ['setup', 'sim']) assert.equal(service(name).healthcheck?.disable, true, name);
  });

  it('the setup job writes the broker’s files and the simulator’s credentials where those read them', () => {
    const text = script();
    const acl =
      /lockcloud admin mqtt-acl --out (\S+) --cloud-users (\d+) --cloud-password "\$MQTT_CLOUD_PASSWORD"/.exec(
        text,
      );
    assert.ok(acl, text);
    const [, out = '', users] = acl;
    assert.equal(Number(users), SERVERS.length, 'a broker user per server');
    // mqtt-acl names its files by absolute path in mosquitto.conf: Mosquitto must see them at the same one.
    const conf = `${out}/mosquitto.conf`;
    assert.deepEqual(service('mosquitto').command, ['mosquitto', '-c', conf]);
    const written = volumeHolding('setup', conf);
    const read = volumeHolding('mosquitto', conf);
    assert.deepEqual(read, written, 'the same volume at the same path');
    // The files are 0600, the image's user's: the broker runs as that user.
    assert.ok(imageUser, 'a USER in the Containerfile');
    assert.equal(service('mosquitto').user, imageUser);

    const simCommand = service('sim').command ?? [];
    const credentials = simCommand[simCommand.indexOf('--access-points') + 1] ?? '';
    assert.match(
      text,
      new RegExp(
        `register-ap .* --json > ${credentials}\\.tmp\\n\\s*mv ${credentials}\\.tmp ${credentials}\\n`,
      ),
    );
    assert.equal(volumeHolding('sim', credentials).volume, volumeHolding('setup', credentials).volume);
    for (const name of ['mosquitto', 'sim'])
      assert.ok(
        mountsOf(name).every(([, , mode]) => mode === 'ro'),
        `${name} reads the setup volume only`,
      );
    for (const [volume] of LOCKCLOUD.concat('mosquitto', 'postgres').flatMap(mountsOf))
      assert.ok(Object.hasOwn(compose.volumes ?? {}, volume), `volume ${volume} is declared`);
    // The sim's broker is the compose one's, without a user: access points log in as themselves.
    assert.equal(service('sim').environment?.MQTT_URL, 'mqtt://mosquitto:1883');
  });

  it('the setup job creates only what is missing, and its variables are the container’s', () => {
    const text = script();
    assert.match(text, /^umask 077$/m, "the access points' passwords are for the image's user only");
    assert.match(text, /grep -qF "\\"\$LOCKCLOUD_OWNER_EMAIL\\""/);
    assert.match(text, /if \[ -s \/data\/access-points\.json \]/);
    // Compose substitutes `$NAME` from the host's environment: the script's own variables are `$$NAME`.
    const rawScript = raw.services.setup?.command?.join('\n') ?? '';
    assert.doesNotMatch(rawScript.replaceAll('$$', ''), /\$/, 'a $ that Compose would substitute');
    // The password reaches create-account on its stdin, not its command line (ps shows that).
    assert.match(
      text,
      /printf '%s\\n' "\$LOCKCLOUD_OWNER_PASSWORD" \| lockcloud admin create-account "\$LOCKCLOUD_OWNER_EMAIL"/,
    );
  });

  it('holds no secret: each must be set in the environment, and Compose stops saying which otherwise', () => {
    const text = readFileSync('compose.yaml', 'utf8');
    for (const name of SECRETS) {
      assert.match(text, new RegExp(`\\$\\{${name}:\\?set ${name} in \\.env`), name);
      const without = Object.fromEntries(Object.entries(ENV).filter(([k]) => k !== name));
      assert.throws(
        () => interpolateAll(raw, without),
        (error: Error) =>
          error instanceof InterpolationError && error.message.startsWith(`${name}: set ${name} in .env`),
        name,
      );
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's syntax, not a template
    assert.equal(interpolate('${LOCKCLOUD_OWNER_EMAIL:-owner@example.com}', {}), 'owner@example.com');
  });
});
