/**
 * The embedded broker's retained messages, by topic, in a tree of topic levels. aedes's in-memory
 * persistence keeps them in one map and, for every subscription, tests each retained topic against
 * the filter: every access point that connects pays for every other's retained messages. At 10,000
 * access points (120,000 retained messages) that scan took 57 % of the server's CPU while they
 * connected, and listing them all took over ten minutes (docs/performance-notes.md). Here a filter
 * walks only the levels it names: an access point's `…/{ap}/lock/+/cmd` visits its own locks.
 *
 * Matching is MQTT's, as aedes's qlobber did it: `+` one level (an empty one too), `#` the level it
 * stands at and everything below it. Filters are valid by then (aedes checks them at SUBSCRIBE):
 * `#` comes last.
 */
interface Level<P> {
  packet?: P;
  children?: Map<string, Level<P>>;
}

export class RetainedTopics<P> {
  private readonly root: Level<P> = {};
  private count = 0;

  get size(): number {
    return this.count;
  }

  set(topic: string, packet: P): void {
    let level = this.root;
    for (const word of topic.split('/')) {
      level.children ??= new Map();
      let child = level.children.get(word);
      if (child === undefined) {
        child = {};
        level.children.set(word, child);
      }
      level = child;
    }
    if (level.packet === undefined) this.count += 1;
    level.packet = packet;
  }

  delete(topic: string): void {
    const path: [Level<P>, string][] = [];
    let level: Level<P> | undefined = this.root;
    for (const word of topic.split('/')) {
      const child: Level<P> | undefined = level.children?.get(word);
      if (child === undefined) return;
      path.push([level, word]);
      level = child;
    }
    if (level.packet === undefined) return;
    level.packet = undefined;
    this.count -= 1;
    // Levels left holding nothing go, so a topic published once and cleared costs nothing after.
    for (let i = path.length - 1; i >= 0; i--) {
      const [parent, word] = path[i] as [Level<P>, string];
      const child = parent.children?.get(word);
      if (child === undefined || child.packet !== undefined || (child.children?.size ?? 0) > 0) break;
      parent.children?.delete(word);
      if (parent.children?.size === 0) parent.children = undefined;
    }
  }

  /** Every retained message whose topic `filter` matches. */
  *matching(filter: string): Generator<P> {
    yield* matchFrom(this.root, filter.split('/'), 0);
  }
}

function* matchFrom<P>(level: Level<P>, words: readonly string[], at: number): Generator<P> {
  if (at === words.length) {
    if (level.packet !== undefined) yield level.packet;
    return;
  }
  const word = words[at];
  if (word === '#') {
    yield* everything(level);
    return;
  }
  if (level.children === undefined) return;
  if (word === '+') {
    for (const child of level.children.values()) yield* matchFrom(child, words, at + 1);
    return;
  }
  const child = level.children.get(word as string);
  if (child !== undefined) yield* matchFrom(child, words, at + 1);
}

function* everything<P>(level: Level<P>): Generator<P> {
  if (level.packet !== undefined) yield level.packet;
  if (level.children !== undefined) for (const child of level.children.values()) yield* everything(child);
}
