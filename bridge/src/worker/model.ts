// Asks an OpenAI-compatible chat completions API. Failures are described without the key or the model's text.
import ky, { HTTPError, TimeoutError } from 'ky';

export interface ModelSettings {
  readonly baseUrl: string;
  readonly name: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
}

export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

/** A failed model call; the reason is safe to log and to post on the board. */
export class ModelFailure extends Error {}

export async function askModel(settings: ModelSettings, messages: readonly ChatMessage[], signal: AbortSignal): Promise<string> {
  let answer: unknown;
  try {
    answer = await ky
      .post(`${settings.baseUrl}/chat/completions`, {
        json: { model: settings.name, messages },
        headers: { authorization: `Bearer ${settings.apiKey}` },
        timeout: settings.timeoutMs,
        retry: 0,
        signal,
      })
      .json();
  } catch (error) {
    if (signal.aborted) throw new ModelFailure('the call was cancelled');
    if (error instanceof TimeoutError) throw new ModelFailure(`the model did not answer within ${settings.timeoutMs / 1000} s`);
    if (error instanceof HTTPError) throw new ModelFailure(`the model API answered HTTP ${error.response.status}`);
    // A 200 whose body is not JSON (a proxy's or captive portal's page): reached, but not an API answer.
    if (error instanceof SyntaxError) throw new ModelFailure('the model API answered with something other than JSON');
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new ModelFailure(`the model API could not be reached${cause ? ` (${cause})` : ''}`);
  }
  const content = (answer as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new ModelFailure('the model API answered without a message');
  return content;
}
