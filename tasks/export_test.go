package tasks

// TaskIDForKey exposes the id an idempotency key's task gets, for tests
// that look at a submission cut off before its META item.
var TaskIDForKey = taskIDForKey
