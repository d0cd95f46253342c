-- Each webhook's last attempt (issue 31): when, how it ended and why, so `roundtable webhooks status` says why
-- deliveries wait instead of a bare pending count. Written with the delivery's outcome, in the same statement.
ALTER TABLE webhooks ADD COLUMN last_attempt_at TEXT COLLATE "C";
ALTER TABLE webhooks ADD COLUMN last_outcome TEXT;
ALTER TABLE webhooks ADD COLUMN last_error TEXT;
