/** The shared todo list of one session: the primary agent and its reviewer read and write the same one. */

export type TodoStatus = 'pending' | 'in_progress' | 'completed';
export type TodoPriority = 'high' | 'medium' | 'low';

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
  priority: TodoPriority;
}

export class TodoStore {
  private items: TodoItem[] = [];
  private readonly listeners = new Set<(items: readonly TodoItem[]) => void>();

  constructor(initial: readonly TodoItem[] = []) {
    this.items = initial.map((item) => ({ ...item }));
  }

  list(): TodoItem[] {
    return this.items.map((item) => ({ ...item }));
  }

  /** Replaces the whole list (how todo_write works) and tells the listeners. */
  replace(items: readonly TodoItem[]): void {
    this.items = items.map((item) => ({ ...item }));
    const snapshot = this.list();
    for (const listener of this.listeners) listener(snapshot);
  }

  /** Called after every change, e.g. to send an ACP plan update; returns the unsubscribe function. */
  onChange(listener: (items: readonly TodoItem[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
