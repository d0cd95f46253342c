// The shape of one tool's definition, and how it is listed over MCP.
import { z } from 'zod';
import { LIMITS } from '../limits.js';

export interface ToolDefinition<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  readonly name: string;
  readonly description: string;
  /** Strict: unknown arguments are rejected, so identity can never be passed as an argument. */
  readonly input: I;
  readonly output: O;
  /** True when the call changes the board; such calls may carry an idempotency key. */
  readonly mutates: boolean;
  /**
   * Whether tools/list declares the output schema. Every tool returns structuredContent of its output shape either
   * way; a declared schema costs context on every turn, so only tools whose output a client program acts on
   * declare it (docs/DECISIONS.md, "The tool list's budget").
   */
  readonly listsOutput?: boolean;
  /**
   * Input fields a program fills, not the model (the bridge's `work` and `usage`): left out of tools/list, since their
   * schemas would cost context on every turn for a field no model writes. The board accepts and checks them whole;
   * SPEC §22 documents them.
   */
  readonly unlistedFields?: readonly string[];
}

export type ToolInput<T extends ToolDefinition> = z.infer<T['input']>;
export type ToolOutput<T extends ToolDefinition> = z.infer<T['output']>;

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  definition: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return Object.freeze(definition);
}

/** The entry for MCP tools/list, identical wherever the board is served. */
/**
 * No `title`: it restated the name, and every tool's costs context on every turn (docs/DECISIONS.md, issue 32); MCP
 * clients show the name when a tool has no title.
 */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  /** Only the hints that differ from the defaults MCP gives (readOnly false, destructive true, openWorld true). */
  annotations: { readOnlyHint?: true; destructiveHint?: false; openWorldHint: false };
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

/**
 * Drops the bounds zod gives every .int() (the safe-integer range, about 50 characters an integer): ids and counts
 * say nothing with them, and they cost context on every turn. Bounds the tool itself sets (1-100) are kept.
 */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropSafeIntegerBounds);
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  Object.values(schema).forEach(dropSafeIntegerBounds);
  if (schema['minimum'] === Number.MIN_SAFE_INTEGER) delete schema['minimum'];
  if (schema['maximum'] === Number.MAX_SAFE_INTEGER) delete schema['maximum'];
  // Row ids stop at LIMITS.maxId; the refusal states it, and no caller comes near it.
  if (schema['maximum'] === LIMITS.maxId) delete schema['maximum'];
}

/**
 * An output schema says what the board sends, so `additionalProperties: false` there tells a client nothing it can act
 * on (an input schema keeps it: unknown arguments are refused).
 */
function dropClosedObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropClosedObjects);
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  Object.values(schema).forEach(dropClosedObjects);
  if (schema['additionalProperties'] === false) delete schema['additionalProperties'];
}

function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): { type: 'object'; [key: string]: unknown } {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  splitTypeArrays(rest);
  dropSafeIntegerBounds(rest);
  if (io === 'output') dropClosedObjects(rest);
  return { ...rest, type: 'object' as const };
}

/**
 * A declared output schema also admits the error body: some clients (the Gemini CLI) put an error result's JSON text
 * into structuredContent and check it against the output schema, which turned our error into a schema mismatch.
 */
const ERROR_BODY_SCHEMA = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } },
  required: ['error'],
} as const;

function admittingErrors(schema: { type: 'object'; [key: string]: unknown }): { type: 'object'; [key: string]: unknown } {
  return { type: 'object', anyOf: [schema, ERROR_BODY_SCHEMA] };
}

function withoutFields(schema: { type: 'object'; [key: string]: unknown }, fields: readonly string[] | undefined) {
  if (!fields) return schema;
  const properties = { ...(schema['properties'] as Record<string, unknown>) };
  for (const field of fields) delete properties[field];
  return { ...schema, properties };
}

export function listedTool(tool: ToolDefinition): ListedTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: withoutFields(jsonSchema(tool.input, 'input'), tool.unlistedFields),
    ...(tool.listsOutput && { outputSchema: admittingErrors(jsonSchema(tool.output, 'output')) }),
    // A read-only tool needs no destructive or idempotent hint: MCP reads those only when readOnlyHint is false.
    annotations: tool.mutates ? { destructiveHint: false, openWorldHint: false } : { readOnlyHint: true, openWorldHint: false },
  };
}
