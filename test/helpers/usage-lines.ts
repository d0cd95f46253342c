// Lines of the apps' session files in the shapes Claude Code 2.1.328 and Codex 0.169.0 wrote against the stand-in
// model (observed for issue 35), for the usage tests to write.

/** An answer's line as Claude Code 2.1.328 writes it: one per content block, each with the answer's whole usage. */
export function claudeAnswerLine(id: string, usage: { input: number; output: number; cacheRead: number; cacheWrite: number }, block = 'text', model = 'claude-opus-5-5'): string {
  return JSON.stringify({
    parentUuid: 'p',
    isSidechain: false,
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: block, text: 'x' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: usage.input, cache_creation_input_tokens: usage.cacheWrite, cache_read_input_tokens: usage.cacheRead, output_tokens: usage.output, output_tokens_details: { thinking_tokens: 0 }, service_tier: 'standard' },
    },
    requestId: 'r',
    type: 'assistant',
    uuid: `u-${id}-${block}`,
    timestamp: '2026-12-04T21:39:12.622Z',
    sessionId: 's',
    version: '2.1.328',
  });
}

/** A token_count event as Codex 0.169.0 writes it: the session's running sum. */
export function codexTokenCountLine(total: { input: number; cached: number; output: number; reasoning: number }): string {
  const usage = { input_tokens: total.input, cached_input_tokens: total.cached, cache_write_input_tokens: 0, output_tokens: total.output, reasoning_output_tokens: total.reasoning, total_tokens: total.input + total.output };
  return JSON.stringify({ timestamp: '2026-12-04T21:39:14.032Z', ordinal: 12, type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: usage, last_token_usage: usage, last_usage_includes_reasoning: false, model_context_window: 258400 }, rate_limits: null } });
}
