// How a room message is stored and read back, the same on both stores: recipients are 'all' or a JSON list of names.
import type { NewRoomMessage, StoredRoomMessage } from './store.js';

export interface RoomRow {
  id: number;
  author: string;
  recipients: string;
  text: string;
  created_at: string;
}

/** The recipients column: 'all', or the named members as JSON. */
export function recipientsColumn(message: NewRoomMessage): string {
  return message.to === 'all' ? 'all' : JSON.stringify(message.to);
}

export function toRoomMessage(row: RoomRow): StoredRoomMessage {
  return { id: row.id, from: row.author, to: row.recipients === 'all' ? 'all' : (JSON.parse(row.recipients) as string[]), text: row.text, created_at: row.created_at };
}

/** A message just posted, as its author gets it back. */
export function postedRoomMessage(message: NewRoomMessage, id: number, at: string): StoredRoomMessage {
  return { id, from: message.author, to: message.to === 'all' ? 'all' : [...message.to], text: message.text, created_at: at };
}
