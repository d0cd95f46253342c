// Closing a connection whose request body is still arriving without losing the answer sent on it (issue 31, item 8).
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long the rest of a refused body is read and dropped before the connection is dropped: until the client has
 * sent nothing for LINGER_IDLE_MS, LINGER_MS in all, or LINGER_BYTES more bytes, whichever comes first (nginx's
 * lingering_timeout and lingering_time, with its defaults). A single 2 s deadline reset a slow client in CI.
 */
const LINGER_IDLE_MS = 5_000;
const LINGER_MS = 30_000;
const LINGER_BYTES = 16 * 1024 * 1024;
const POLL_MS = 50;

const lingering = new WeakSet<Socket>();

/**
 * After an answer with `Connection: close`, Node ends the socket and destroys it as soon as its FIN is written. With
 * body bytes still unread (a refused over-limit body), closing the socket makes the kernel send a reset, which can
 * discard the answer in the client's receive buffer: it saw EPIPE or nothing. So for this socket only, the end is
 * a half-close: the answer and the FIN go out, the rest of the body is read (the HTTP parser drops it) until the
 * client closes its side, goes quiet, or the time or byte bound passes, and only then is the socket destroyed.
 */
export function lingerOnClose(socket: Socket, request?: IncomingMessage): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  const readBefore = socket.bytesRead;
  socket.destroySoon = function lingeringClose() {
    if (socket.destroyed) return;
    socket.end();
    // Nobody reads the refused body: its stream (or the web stream over it, which pauses it when its queue is full)
    // holds the socket still, so a client with more than the kernel's buffers left to send would stall, look idle,
    // and be reset. The body's readers are dropped and it is read into nothing until the client is done.
    if (request) {
      request.removeAllListeners('data');
      request.on('data', () => {});
      request.resume();
    }
    const done = () => {
      clearTimeout(deadline);
      clearInterval(counting);
      socket.destroy();
    };
    const deadline = setTimeout(done, LINGER_MS);
    // The HTTP parser consumes the socket's bytes below JavaScript, so the count is polled rather than heard.
    let lastRead = socket.bytesRead;
    let idleSince = Date.now();
    const counting = setInterval(() => {
      const read = socket.bytesRead;
      if (read - readBefore > LINGER_BYTES) return done();
      if (read !== lastRead) {
        lastRead = read;
        idleSince = Date.now();
      } else if (Date.now() - idleSince >= LINGER_IDLE_MS) done();
    }, POLL_MS);
    deadline.unref();
    counting.unref();
    socket.once('end', done);
    socket.once('close', done);
  };
}
