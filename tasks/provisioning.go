package tasks

import "github.com/tablekit/tablekit/table"

// The task queue design's provisioned plan ("provision 2,000 WCU/s with
// auto-scaling", its capacity review at 500 tasks a second) as figures.
// The design names the write base only; the rest is what the declared
// patterns need at that rate (Patterns, docs/costs.md prices it):
//
//   - ProductionWriteCapacity is the design's 2,000 WCU/s, kept as the
//     floor auto-scaling never goes under.
//   - ProductionMaxWriteCapacity lets the scaler carry the declared peak
//     at the target utilization: about 4,900 WCU/s on the table (the
//     design counts 3,500, without the index entries, the WORKER item and
//     META's completion: docs/costs.md) is 7,000 at 70%.
//   - Reads are GSI1's claim queries (about 2,300 RCU/s at the peak) and
//     a few GetItems: a floor of ProductionReadCapacity and a ceiling that
//     carries the peak at 70%.
//   - ProductionTargetPercent is 70%, as the jobs design's plan (the
//     task queue design names none).
const (
	ProductionReadCapacity     = 500
	ProductionMaxReadCapacity  = 4_000
	ProductionWriteCapacity    = 2_000
	ProductionMaxWriteCapacity = 7_000
	ProductionTargetPercent    = 70
)

// ProductionCapacity is the task queue design's provisioned plan: 2,000
// WCU/s with auto-scaling, for the table and GSI1 (every META write is
// also GSI1's; an index that could not grow with the table would throttle
// it). The auto-scaling targets are applied by the infrastructure tool
// (table.Capacity.AutoScaling); EnsureTable accepts any capacity the
// scaler set within them.
func ProductionCapacity() table.Capacity {
	return table.AutoScaled(ProductionReadCapacity, ProductionMaxReadCapacity,
		ProductionWriteCapacity, ProductionMaxWriteCapacity, ProductionTargetPercent)
}

// ProductionProvisioning is the design's production table: on-demand
// becomes ProductionCapacity (the design keeps on-demand "during
// development", the default). A production store opens with
// tasks.Provisioning(tasks.ProductionProvisioning()).
func ProductionProvisioning() table.Provisioning {
	c := ProductionCapacity()
	return table.Provisioning{Capacity: &c}
}

// Provisioning sets Options.Provisioning: the table's production settings
// (tasks.Provisioning(tasks.ProductionProvisioning()) for the design's
// plan).
func Provisioning(p table.Provisioning) func(*Options) {
	return func(o *Options) { o.Provisioning = &p }
}
