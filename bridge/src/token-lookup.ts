// The token for a command that calls the board more than once: looked up once, and again after a 401 or a failure.
import { findToken, type FoundToken, type TokenPlace } from './credentials.js';

export function tokenLookup(place: TokenPlace): (refresh: boolean) => Promise<FoundToken> {
  let found: Promise<FoundToken> | undefined;
  return async (refresh) => {
    if (refresh || !found) found = findToken(place);
    try {
      return await found;
    } catch (error) {
      found = undefined;
      throw error;
    }
  };
}
