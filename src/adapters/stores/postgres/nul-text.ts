import {
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from 'kysely';

const NUL = '\u0000';
const REPLACEMENT = '\uFFFD';

const clean = (value: unknown): unknown =>
  typeof value === 'string' && value.includes(NUL) ? value.replaceAll(NUL, REPLACEMENT) : value;

class NulTextTransformer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = clean(node.value);
    return value === node.value ? node : { ...node, value };
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return node.values.some((v) => clean(v) !== v) ? { ...node, values: node.values.map(clean) } : node;
  }
}

/**
 * PostgreSQL text cannot hold U+0000 (the query fails: "invalid byte sequence for encoding UTF8:
 * 0x00"); SQLite stores it. Input the HTTP layer lets through with one (an e-mail typed at a login,
 * a task id, a webhook URL) would then be a 500 on PostgreSQL and an ordinary answer on SQLite. So
 * every string parameter has U+0000 replaced by U+FFFD, as a decoder does with an unreadable
 * byte: a lookup finds nothing, as on SQLite, and a write stores the text readably.
 */
export class NulTextPlugin implements KyselyPlugin {
  readonly #transformer = new NulTextTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}
