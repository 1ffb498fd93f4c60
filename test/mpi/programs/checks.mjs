// 'topocoll/manual': importing it starts no MPI, so a program may still choose its thread level.
import { MpiError } from 'topocoll/manual';

// What the binding's test programs share: checks counted per rank and failures kept (the first
// 40) for the one JSON line each rank prints ({..., checks, failures}).
export const report = { checks: 0, failures: [] };

export function check(name, ok, detail) {
  report.checks++;
  if (!ok && report.failures.length < 40) report.failures.push({ name, detail });
}

// `fn` throws an instance of `cls` whose message matches `pattern`.
export function throws(name, fn, cls, pattern) {
  try {
    fn();
    check(name, false, 'did not throw');
  } catch (e) {
    check(name, e instanceof cls && pattern.test(e.message), `${e?.constructor?.name}: ${e?.message}`);
  }
}

// `fn` throws an MpiError of class `errorClassName` whose message matches `pattern`.
export function throwsMpi(name, fn, errorClassName, pattern) {
  try {
    fn();
    check(name, false, 'did not throw');
  } catch (e) {
    check(name, e instanceof MpiError && e.errorClassName === errorClassName && pattern.test(e.message), `${e?.constructor?.name} ${e?.errorClassName}: ${e?.message}`);
  }
}
