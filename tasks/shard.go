package tasks

import (
	"hash/fnv"
	"strconv"

	"github.com/tablekit/tablekit/keys"
)

// GSI1 partitions. STATUS#PENDING takes a write for every submission and
// another for every claim (the index entry moves out); STATUS#PROCESSING
// one for every claim, heartbeat and completion. Past ~500 tasks per second
// either passes DynamoDB's 1,000 writes per second per partition, and a
// throttled index throttles the table's writes too. Options.Shards splits
// both (the data-modelling design (docs/systems/datamodel.md), "write sharding": partition_key = original_key + "#" +
// hash(identifier) % shard_count):
//
//	GSI1PK STATUS#PENDING      (Shards = 1, the seed's layout)
//	GSI1PK STATUS#PENDING#7    (Shards > 1: shard = fnv32a(task id) % Shards)
//
// A task keeps its shard for life, so the PROCESSING entry of a task lands
// in the shard its PENDING entry came from. DEAD tasks are few and stay in
// one partition, STATUS#DEAD.
var (
	statusPK        = keys.MustPartition("STATUS#{status}")
	shardedStatusPK = keys.MustPartition("STATUS#{status}#{shard}")
)

// shardOf is the shard of a task.
func (s *Store) shardOf(taskID string) int {
	n := s.shardCount()
	if n == 1 {
		return 0
	}
	return int(hash32(taskID) % uint32(n))
}

// statusPartition is the GSI1PK of a task in status st in shard.
func (s *Store) statusPartition(st Status, shard int) string {
	if s.shardCount() == 1 || (st != StatusPending && st != StatusProcessing) {
		return mustBuild(statusPK, st)
	}
	return mustBuild(shardedStatusPK, st, strconv.Itoa(shard))
}

// shardOrder is the order a worker visits the shards in: starting at an
// offset derived from its id, so workers spread over the shards instead of
// all draining shard 0 first.
func (s *Store) shardOrder(workerID string) []int {
	n := s.shardCount()
	order := make([]int, n)
	start := int(hash32(workerID) % uint32(n))
	for i := range order {
		order[i] = (start + i) % n
	}
	return order
}

func hash32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
