/** Reads the route list of a running server (Fastify's printRoutes), for the tests that hold every route to a rule. */

/**
 * The routes of Fastify's printRoutes({ commonPrefix: false }) tree, as "METHOD /path". Each line is
 * one node: its depth is its indentation (4 characters a level), its path the concatenation of the
 * segments above it, its methods in parentheses.
 */
export function parseRouteTree(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const depth = (at - 1) / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 3));
    if (!match || !Number.isInteger(depth)) throw new Error(`cannot read the route line "${line}"`);
    stack.length = depth;
    stack.push(match[1] ?? '');
    const path = stack.join('');
    for (const method of (match[2] ?? '').split(', ').filter(Boolean)) routes.push(`${method} ${path}`);
  }
  return routes;
}
