/**
 * The embedded broker's retained messages, grouped by the first levels of their topic. aedes's
 * in-memory persistence keeps them in one map and, for every subscription, tests each retained topic
 * against the filter: every access point that connects pays for every other's retained messages. At
 * 10,000 access points (120,000 retained messages) that scan took 57 % of the server's CPU while they
 * connected, and they were not all announced after ten minutes (docs/performance-notes.md).
 *
 * Grouped by the levels up to the access point's id (`depth`: lockcloud's topics are
 * `{base}{ap}/…`), an access point's filters (`{base}{ap}/lock/+/cmd`) look in its own group only:
 * a dozen topics. A filter with a wildcard within those levels (the server's own, `{base}+/status`,
 * once per connection) looks at every group. Either way each topic is matched as MQTT says: `+` one
 * level (an empty one too), `#` the level it stands at and everything below. Filters are valid by
 * then (aedes checks them at SUBSCRIBE): `#` comes last.
 */
export class RetainedTopics<P> {
  private readonly groups = new Map<string, Map<string, P>>();
  private count = 0;

  /** `depth`: how many leading levels make a group (at least 1). */
  constructor(private readonly depth: number) {}

  get size(): number {
    return this.count;
  }

  set(topic: string, packet: P): void {
    const key = this.groupOf(topic);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = new Map();
      this.groups.set(key, group);
    }
    if (!group.has(topic)) this.count += 1;
    group.set(topic, packet);
  }

  delete(topic: string): void {
    const key = this.groupOf(topic);
    const group = this.groups.get(key);
    if (group === undefined || !group.delete(topic)) return;
    this.count -= 1;
    if (group.size === 0) this.groups.delete(key);
  }

  /** Every retained message whose topic `filter` matches. */
  *matching(filter: string): Generator<P> {
    const words = filter.split('/');
    const leading = words.slice(0, this.depth);
    if (leading.every((word) => word !== '+' && word !== '#')) {
      const group = this.groups.get(leading.join('/'));
      if (group !== undefined) yield* matchingIn(group, words);
      return;
    }
    for (const group of this.groups.values()) yield* matchingIn(group, words);
  }

  /** The topic's first `depth` levels (all of it when it has no more). */
  private groupOf(topic: string): string {
    let end = -1;
    for (let level = 0; level < this.depth; level++) {
      end = topic.indexOf('/', end + 1);
      if (end === -1) return topic;
    }
    return topic.slice(0, end);
  }
}

function* matchingIn<P>(group: ReadonlyMap<string, P>, filter: readonly string[]): Generator<P> {
  for (const [topic, packet] of group) if (matches(filter, topic.split('/'))) yield packet;
}

function matches(filter: readonly string[], topic: readonly string[]): boolean {
  for (let i = 0; i < filter.length; i++) {
    const word = filter[i];
    if (word === '#') return true;
    if (i >= topic.length) return false;
    if (word !== '+' && word !== topic[i]) return false;
  }
  return filter.length === topic.length;
}
