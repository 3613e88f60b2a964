/**
 * Waiting for a task started through the API (`POST /api/v1/tasks/...`, answered 202 with its
 * `task_id`) to end: the one "poll a task until it ends" of the tests.
 *
 * ```ts
 * const accepted = await call(api.base, 'POST', '/api/v1/tasks/extract', { json: { environment_ids: [ENV] } });
 * const done = await waitForTask(api.base, accepted.body.task_id);
 * assert.equal(done.body.status, 'completed');
 * ```
 */
import { call, type Answer } from '../http/helpers.js';
import { eventually } from './wait.js';

/**
 * Asks `GET /api/v1/tasks/{taskId}` until the task is no longer `pending`, and answers the last
 * answer: the task completed or failed, or a status other than 200 (an unknown task's 404 ends the
 * wait at once).
 * @param base the API's base URL (`TestApi.base`)
 * @param headers sent with every request (e.g. `authorization`)
 * @param timeoutMs how long the task may stay pending, in milliseconds (default 20,000)
 * @throws Error naming the task when it is still pending after `timeoutMs`
 */
export async function waitForTask(
  base: string,
  taskId: string,
  headers: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<Answer> {
  return eventually(
    `task ${taskId} to end`,
    async () => {
      const answer = await call(base, 'GET', `/api/v1/tasks/${taskId}`, { headers });
      return answer.status !== 200 || answer.body.status !== 'pending' ? answer : undefined;
    },
    { timeoutMs },
  );
}
