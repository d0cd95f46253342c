-- A web session is kept under the SHA-256 of its id, not the id: the id is the cookie, a bearer credential, and
-- whoever can read this table should not be able to sign in with what is in it. Sessions kept under their ids until
-- now cannot be found under a digest, so they end: their people sign in again.
DELETE FROM web_sessions;
ALTER TABLE web_sessions RENAME COLUMN id TO id_sha256;
