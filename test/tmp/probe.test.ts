import { it, expect } from 'vitest';
import { api, startBoard } from '../helpers/board.js';
it('probe', async () => {
  const b = await startBoard({ store: 'postgres' });
  try {
    for (const id of [2 ** 31, 2 ** 40, 2 ** 53 - 1]) {
      const r = await api(b, 'lead', 'get_task', { task_id: id });
      console.log(id, r.status, JSON.stringify(r.body));
      const r2 = await api(b, 'w1', 'submit_result', { task_id: 1, result: 'x', claim_id: id });
      console.log(id, r2.status, JSON.stringify(r2.body));
      const r3 = await api(b, 'lead', 'create_task', { title: 'x', depends_on: [id] });
      console.log(id, r3.status, JSON.stringify(r3.body));
    }
  } finally { await b.stop(); }
});
