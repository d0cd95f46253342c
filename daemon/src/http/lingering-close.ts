// Closing a connection whose request body is still arriving without losing the answer sent on it (issue 31, item 8).
import type { Socket } from 'node:net';

/** How long, and how many more bytes, the rest of a refused body is read and dropped before the connection is dropped. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 16 * 1024 * 1024;

const lingering = new WeakSet<Socket>();

/**
 * After an answer with `Connection: close`, Node ends the socket and destroys it as soon as its FIN is written. With
 * body bytes still unread (a refused over-limit body), closing the socket makes the kernel send a reset, which can
 * discard the answer in the client's receive buffer: it saw EPIPE or nothing. So for this socket only, the end is
 * a half-close: the answer and the FIN go out, the rest of the body is read (the HTTP parser drops it) until the
 * client closes its side, or LINGER_MS or LINGER_BYTES pass, and only then is the socket destroyed.
 */
export function lingerOnClose(socket: Socket): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  const readBefore = socket.bytesRead;
  socket.destroySoon = function lingeringClose() {
    if (socket.destroyed) return;
    socket.end();
    const done = () => {
      clearTimeout(deadline);
      clearInterval(counting);
      socket.destroy();
    };
    const deadline = setTimeout(done, LINGER_MS);
    // The HTTP parser consumes the socket's bytes below JavaScript, so the count is polled rather than heard.
    const counting = setInterval(() => {
      if (socket.bytesRead - readBefore > LINGER_BYTES) done();
    }, 50);
    deadline.unref();
    counting.unref();
    socket.once('end', done);
    socket.once('close', done);
  };
}
