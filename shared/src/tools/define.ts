// The shape of one tool's definition, and how it is listed over MCP.
import { z } from 'zod';

export interface ToolDefinition<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Strict: unknown arguments are rejected, so identity can never be passed as an argument. */
  readonly input: I;
  readonly output: O;
  /** True when the call changes the board; such calls may carry an idempotency key. */
  readonly mutates: boolean;
}

export type ToolInput<T extends ToolDefinition> = z.infer<T['input']>;
export type ToolOutput<T extends ToolDefinition> = z.infer<T['output']>;

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  definition: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return Object.freeze(definition);
}

/** The entry for MCP tools/list, identical wherever the board is served. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema: { type: 'object'; [key: string]: unknown };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/**
 * Writes a nullable field as anyOf branches of one type each instead of `type: [T, "null"]`:
 * clients that map schemas onto a single-type dialect (Gemini's function declarations) reject type arrays.
 */
function splitTypeArrays(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(splitTypeArrays);
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  Object.values(schema).forEach(splitTypeArrays);
  const type = schema['type'];
  if (!Array.isArray(type)) return;
  const { type: _type, description, ...constraints } = schema;
  for (const key of Object.keys(schema)) delete schema[key];
  if (description !== undefined) schema['description'] = description;
  schema['anyOf'] = type.map((t: string) => (t === 'null' ? { type: 'null' } : { type: t, ...constraints }));
}

export function listedTool(tool: ToolDefinition): ListedTool {
  const jsonSchema = (schema: z.ZodObject, io: 'input' | 'output') => {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
    splitTypeArrays(rest);
    return { ...rest, type: 'object' as const };
  };
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output'),
    annotations: {
      title: tool.title,
      readOnlyHint: !tool.mutates,
      destructiveHint: false,
      idempotentHint: !tool.mutates,
      openWorldHint: false,
    },
  };
}
