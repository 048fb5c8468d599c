import { didYouMean } from '../vocabulary/did-you-mean';
import { bashTool } from './builtin/bash';
import { editFileTool } from './builtin/edit-file';
import { globTool } from './builtin/glob';
import { grepTool } from './builtin/grep';
import { listDirectoryTool } from './builtin/list-directory';
import { readFileTool } from './builtin/read-file';
import { requestApprovalTool } from './builtin/request-approval';
import { taskCompleteTool } from './builtin/task-complete';
import { taskTool } from './builtin/task';
import { thinkTool } from './builtin/think';
import { createWebFetchTool, webFetchTool } from './builtin/web-fetch';
import { createWebSearchTool, type WebSearchConfig } from './builtin/web-search';
import { todoReadTool, todoWriteTool } from './builtin/todo';
import { writeFileTool } from './builtin/write-file';
import type { Tool } from './tool';

/** Tools by name, in the order they were registered. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; a second tool with the same name is an error. */
  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new Error(`A tool named "${tool.name}" is already registered.`);
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** A new registry holding only `names`, in that order; throws naming every unknown one. */
  pick(names: string[]): ToolRegistry {
    const unknown = names.filter((name) => !this.tools.has(name));
    if (unknown.length > 0) {
      const problems = unknown.map((name) => {
        const guess = didYouMean(name, this.names());
        return guess === undefined ? `"${name}"` : `"${name}" (did you mean "${guess}"?)`;
      });
      throw new Error(`Unknown tool ${problems.join(', ')}. Known tools: ${this.names().join(', ')}.`);
    }
    const picked = new ToolRegistry();
    for (const name of new Set(names)) picked.register(this.tools.get(name) as Tool);
    return picked;
  }
}

export interface BuiltinToolOptions {
  /** The web_search backend; without it web_search answers that it is not configured. */
  webSearch?: WebSearchConfig;
  /** web_fetch's reach; without it, public addresses only. */
  webFetch?: { allowPrivateAddresses?: boolean };
}

/**
 * The tools every agent can be given: files, search, shell, web, the todo
 * list, subagents, asking the person for approval, thinking and finishing. Settings satisfy the options as they are:
 * builtinTools(settings).
 */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [
    readFileTool,
    writeFileTool,
    editFileTool,
    listDirectoryTool,
    globTool,
    grepTool,
    bashTool,
    options.webFetch?.allowPrivateAddresses ? createWebFetchTool({ allowPrivateAddresses: true }) : webFetchTool,
    createWebSearchTool(options.webSearch),
    todoWriteTool,
    todoReadTool,
    taskTool,
    requestApprovalTool,
    thinkTool,
    taskCompleteTool,
  ];
}
