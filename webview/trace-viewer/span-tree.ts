/**
 * The spans of a trace as a tree kept up to date one record at a time, so a
 * trace that arrives in pieces costs no rebuild per piece. Roots and
 * children are in start order (equal starts in arrival order). A span whose
 * parent has not arrived is a root until the parent does, and stays one if
 * it never does. A record naming its own descendant (or itself) as parent
 * would close a loop: it stays a root, so every span remains in view.
 */
import type { SpanRecord } from '../../src/telemetry/span';

export interface SpanNode {
  span: SpanRecord;
  children: SpanNode[];
  parent: SpanNode | undefined;
}

export class SpanTree {
  readonly roots: SpanNode[] = [];
  private readonly nodes = new Map<string, SpanNode>();
  /** Roots that name a parent not seen yet, by that parent's id. */
  private readonly waiting = new Map<string, SpanNode[]>();

  get size(): number {
    return this.nodes.size;
  }

  get(spanId: string): SpanNode | undefined {
    return this.nodes.get(spanId);
  }

  values(): IterableIterator<SpanNode> {
    return this.nodes.values();
  }

  /** Adds `span`, or puts it in place of the record of the same span (moving it when its parent or start changed). */
  set(span: SpanRecord): void {
    const known = this.nodes.get(span.spanId);
    if (known) {
      const moved = known.span.parentSpanId !== span.parentSpanId || known.span.start !== span.start;
      if (moved) this.detach(known);
      known.span = span;
      if (moved) this.attach(known);
      return;
    }
    const node: SpanNode = { span, children: [], parent: undefined };
    this.nodes.set(span.spanId, node);
    this.attach(node);
    const adopted = this.waiting.get(span.spanId);
    if (!adopted) return;
    this.waiting.delete(span.spanId);
    for (const child of adopted) {
      this.detach(child);
      this.attach(child);
    }
  }

  private attach(node: SpanNode): void {
    const parentId = node.span.parentSpanId;
    const parent = parentId !== undefined ? this.nodes.get(parentId) : undefined;
    if (parent && !isWithin(parent, node)) {
      node.parent = parent;
      place(parent.children, node);
      return;
    }
    node.parent = undefined;
    place(this.roots, node);
    if (parentId === undefined || parent) return;
    const waiting = this.waiting.get(parentId);
    if (waiting) waiting.push(node);
    else this.waiting.set(parentId, [node]);
  }

  private detach(node: SpanNode): void {
    if (node.parent) {
      remove(node.parent.children, node);
      node.parent = undefined;
      return;
    }
    remove(this.roots, node);
    const parentId = node.span.parentSpanId;
    const waiting = parentId !== undefined ? this.waiting.get(parentId) : undefined;
    if (waiting) remove(waiting, node);
  }
}

/** Whether `node` is `ancestor` or below it: only a node with children can be, so a new span costs nothing here. */
function isWithin(node: SpanNode, ancestor: SpanNode): boolean {
  if (node === ancestor) return true;
  if (ancestor.children.length === 0) return false;
  for (let at = node.parent; at; at = at.parent) if (at === ancestor) return true;
  return false;
}

/** Inserts after every node that starts no later: appending, for spans arriving in start order. */
function place(list: SpanNode[], node: SpanNode): void {
  const start = node.span.start;
  if (list.length === 0 || list[list.length - 1]!.span.start <= start) {
    list.push(node);
    return;
  }
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]!.span.start <= start) low = middle + 1;
    else high = middle;
  }
  list.splice(low, 0, node);
}

function remove(list: SpanNode[], node: SpanNode): void {
  const index = list.lastIndexOf(node);
  if (index >= 0) list.splice(index, 1);
}
