-- Each webhook's last attempt (issue 31): when, how it ended and why, so `roundtable webhooks status` says why
-- deliveries wait instead of a bare pending count. Written with the delivery's outcome, in the same transaction.
ALTER TABLE webhooks ADD COLUMN last_attempt_at TEXT;
-- delivered or failed; NULL until the first attempt.
ALTER TABLE webhooks ADD COLUMN last_outcome TEXT;
-- The failed attempt's fixed code (http_500, connect_refused, tls_failed, ...); NULL after a delivery.
ALTER TABLE webhooks ADD COLUMN last_error TEXT;
