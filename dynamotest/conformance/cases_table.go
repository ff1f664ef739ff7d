package conformance

import (
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func tableCases() []Case {
	createErr := func(name string, mutate func(in *dynamodb.CreateTableInput)) Case {
		return Case{Name: "createtable-error/" + name, NoTable: true, Run: func(c *C) {
			in := PKSK.CreateTableInput(c.UniqueTableName("bad"))
			mutate(in)
			_, err := c.API.CreateTable(c.Ctx, in)
			if err == nil {
				_, _ = c.API.DeleteTable(c.Ctx, &dynamodb.DeleteTableInput{TableName: in.TableName})
			}
			c.ExpectErr(err, "ValidationException")
		}}
	}
	def := func(name string, t types.ScalarAttributeType) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
	}
	return []Case{
		{Name: "createtable/describe-shows-schema", NoTable: true, Run: func(c *C) {
			name := c.CreateTable(Indexed)
			out, err := c.API.DescribeTable(c.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			c.OK(err)
			tb := out.Table
			if aws.ToString(tb.TableName) != name || tb.TableStatus != types.TableStatusActive {
				c.Errorf("DescribeTable = %s %s; want %s ACTIVE", aws.ToString(tb.TableName), tb.TableStatus, name)
			}
			if got := keySchemaString(tb.KeySchema); got != "pk HASH, sk RANGE" {
				c.Errorf("KeySchema = %s", got)
			}
			var gsis []string
			for _, g := range tb.GlobalSecondaryIndexes {
				p := string(g.Projection.ProjectionType)
				if len(g.Projection.NonKeyAttributes) > 0 {
					p += fmt.Sprint(g.Projection.NonKeyAttributes)
				}
				gsis = append(gsis, aws.ToString(g.IndexName)+"("+keySchemaString(g.KeySchema)+") "+p)
			}
			slices.Sort(gsis)
			want := []string{"byOwner(owner HASH) KEYS_ONLY", "byStatus(status HASH, created RANGE) ALL", "byTag(tag HASH, rank RANGE) INCLUDE[title]"}
			if fmt.Sprint(gsis) != fmt.Sprint(want) {
				c.Errorf("GlobalSecondaryIndexes = %v; want %v", gsis, want)
			}
			if tb.TableArn == nil || tb.CreationDateTime == nil {
				c.Errorf("DescribeTable lacks TableArn or CreationDateTime")
			}
		}},
		{Name: "createtable/output-describes-table", NoTable: true, Run: func(c *C) {
			name := c.UniqueTableName("conf")
			out, err := c.API.CreateTable(c.Ctx, PK.CreateTableInput(name))
			c.OK(err)
			c.Cleanup(func() { _, _ = c.API.DeleteTable(c.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
			if out.TableDescription == nil || aws.ToString(out.TableDescription.TableName) != name {
				c.Fatalf("CreateTable output does not describe %s", name)
			}
			if got := keySchemaString(out.TableDescription.KeySchema); got != "pk HASH" {
				c.Errorf("KeySchema = %s", got)
			}
		}},
		{Name: "createtable-error/already-exists", NoTable: true, Run: func(c *C) {
			name := c.CreateTable(PK)
			_, err := c.API.CreateTable(c.Ctx, PK.CreateTableInput(name))
			c.ExpectErr(err, "ResourceInUseException")
		}},
		createErr("key-attribute-not-defined", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = in.AttributeDefinitions[:1]
		}),
		createErr("unused-attribute-definition", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = append(in.AttributeDefinitions, def("extra", types.ScalarAttributeTypeS))
		}),
		createErr("name-too-short", func(in *dynamodb.CreateTableInput) { in.TableName = aws.String("ab") }),
		createErr("name-bad-characters", func(in *dynamodb.CreateTableInput) { in.TableName = aws.String("bad name!") }),
		createErr("two-hash-keys", func(in *dynamodb.CreateTableInput) { in.KeySchema[1].KeyType = types.KeyTypeHash }),
		createErr("range-key-first", func(in *dynamodb.CreateTableInput) {
			in.KeySchema[0], in.KeySchema[1] = in.KeySchema[1], in.KeySchema[0]
		}),
		createErr("index-key-not-defined", func(in *dynamodb.CreateTableInput) {
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byX"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("x"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
		}),
		createErr("index-name-too-short", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = append(in.AttributeDefinitions, def("x", types.ScalarAttributeTypeS))
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("ix"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("x"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
		}),
		createErr("two-indexes-same-name", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = append(in.AttributeDefinitions, def("x", types.ScalarAttributeTypeS))
			g := types.GlobalSecondaryIndex{IndexName: aws.String("byX"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("x"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{g, g}
		}),
		createErr("key-attribute-of-type-bool", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions[0].AttributeType = "BOOL"
		}),
		{Name: "describetable-error/missing", NoTable: true, Run: func(c *C) {
			_, err := c.API.DescribeTable(c.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(c.UniqueTableName("missing"))})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "deletetable/then-missing", NoTable: true, Run: func(c *C) {
			name := c.CreateTable(PK)
			out, err := c.API.DeleteTable(c.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			c.OK(err)
			if out.TableDescription == nil || aws.ToString(out.TableDescription.TableName) != name {
				c.Errorf("DeleteTable output does not describe %s", name)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				_, err = c.API.DescribeTable(c.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
				if err != nil || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			c.ExpectErr(err, "ResourceNotFoundException")
			_, err = c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: I("pk", "a")})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "deletetable-error/missing", NoTable: true, Run: func(c *C) {
			_, err := c.API.DeleteTable(c.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(c.UniqueTableName("missing"))})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "deletetable/recreate-is-empty", Seed: Items(I("pk", "a", "sk", "1")), Run: func(c *C) {
			_, err := c.API.DeleteTable(c.Ctx, &dynamodb.DeleteTableInput{TableName: c.TableName()})
			c.OK(err)
			deadline := time.Now().Add(30 * time.Second)
			for {
				_, err = c.API.CreateTable(c.Ctx, PKSK.CreateTableInput(c.Table))
				if err == nil || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			c.OK(err)
			c.WaitActive(c.Table)
			c.ExpectTable(Items())
		}},
		{Name: "listtables/includes-created-tables-in-order", NoTable: true, Run: func(c *C) {
			a, b := c.CreateTable(PK), c.CreateTable(PK)
			names := c.listTables(nil)
			ia, ib := slices.Index(names, a), slices.Index(names, b)
			if ia < 0 || ib < 0 {
				c.Fatalf("ListTables lacks %s or %s", a, b)
			}
			if !slices.IsSorted(names) {
				c.Errorf("ListTables names are not in order: %v", names)
			}
		}},
		{Name: "listtables/pages-with-limit", NoTable: true, Run: func(c *C) {
			made := []string{c.CreateTable(PK), c.CreateTable(PK), c.CreateTable(PK)}
			limit := int32(1)
			names := c.listTables(&limit)
			for _, n := range made {
				if !slices.Contains(names, n) {
					c.Errorf("paging ListTables with Limit 1 missed %s", n)
				}
			}
			if len(names) != len(slices.Compact(slices.Clone(names))) {
				c.Errorf("paging ListTables returned a name twice: %v", names)
			}
		}},
		{Name: "listtables/limit-gives-last-name", NoTable: true, Run: func(c *C) {
			c.CreateTable(PK)
			c.CreateTable(PK)
			out, err := c.API.ListTables(c.Ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
			c.OK(err)
			if len(out.TableNames) != 1 || aws.ToString(out.LastEvaluatedTableName) != out.TableNames[0] {
				c.Errorf("ListTables Limit 1 = %v, LastEvaluatedTableName %q; want one name and it as the last", out.TableNames, aws.ToString(out.LastEvaluatedTableName))
			}
		}},
		{Name: "listtables-error/limit-over-100", NoTable: true, Run: func(c *C) {
			_, err := c.API.ListTables(c.Ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
			c.ExpectErr(err, "ValidationException")
		}},

		// Time to live.
		{Name: "ttl/enable-and-describe", NoTable: true, Run: func(c *C) {
			name := c.CreateTable(PK)
			out, err := c.API.DescribeTimeToLive(c.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			c.OK(err)
			if s := out.TimeToLiveDescription.TimeToLiveStatus; s != types.TimeToLiveStatusDisabled {
				c.Errorf("new table TTL status %s; want DISABLED", s)
			}
			up, err := c.API.UpdateTimeToLive(c.Ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
			c.OK(err)
			if aws.ToString(up.TimeToLiveSpecification.AttributeName) != "expires" || !aws.ToBool(up.TimeToLiveSpecification.Enabled) {
				c.Errorf("UpdateTimeToLive output %+v", up.TimeToLiveSpecification)
			}
			out, err = c.API.DescribeTimeToLive(c.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			c.OK(err)
			d := out.TimeToLiveDescription
			if d.TimeToLiveStatus != types.TimeToLiveStatusEnabled && d.TimeToLiveStatus != types.TimeToLiveStatusEnabling {
				c.Errorf("TTL status %s; want ENABLED", d.TimeToLiveStatus)
			}
			if aws.ToString(d.AttributeName) != "expires" {
				c.Errorf("TTL attribute %q; want expires", aws.ToString(d.AttributeName))
			}
		}},
		{Name: "ttl-error/enable-twice", NoTable: true, Run: func(c *C) {
			name := c.CreateTable(WithTTL)
			_, err := c.API.UpdateTimeToLive(c.Ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
			c.ExpectErr(err, "ValidationException", "TimeToLive is already enabled")
		}},
		{Name: "ttl/disable", NoTable: true, Run: func(c *C) {
			name := c.CreateTable(WithTTL)
			_, err := c.API.UpdateTimeToLive(c.Ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(false)}})
			c.OK(err)
			out, err := c.API.DescribeTimeToLive(c.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			c.OK(err)
			if s := out.TimeToLiveDescription.TimeToLiveStatus; s != types.TimeToLiveStatusDisabled && s != types.TimeToLiveStatusDisabling {
				c.Errorf("TTL status after disabling %s; want DISABLED", s)
			}
		}},
		{Name: "ttl-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.DescribeTimeToLive(c.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(c.UniqueTableName("missing"))})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "ttl/expired-item-is-readable-until-deleted", Schema: WithTTL, Run: func(c *C) {
			past := I("pk", "a", "sk", "1", "expires", Ni(int(time.Now().Add(-time.Hour).Unix())))
			c.Put(past)
			c.ExpectItem("expired item before the sweeper runs", c.Get(I("pk", "a", "sk", "1")), past)
		}},
		{Name: "ttl/advancing-clock-deletes-expired-items", Schema: WithTTL, Needs: NeedsClock, Run: func(c *C) {
			now := time.Now()
			soon := I("pk", "a", "sk", "1", "expires", Ni(int(now.Add(time.Minute).Unix())))
			later := I("pk", "b", "sk", "1", "expires", Ni(int(now.Add(3*time.Hour).Unix())))
			notANumber := I("pk", "c", "sk", "1", "expires", "tomorrow")
			none := I("pk", "d", "sk", "1")
			c.Put(soon, later, notANumber, none)
			c.API.(Clock).Advance(time.Hour)
			c.ExpectTable(Items(later, notANumber, none))
		}},
		{Name: "ttl/expiry-ignores-far-past-timestamps", Schema: WithTTL, Needs: NeedsClock, Run: func(c *C) {
			// DynamoDB only expires items whose TTL is within five years
			// before now; an older epoch value is taken as not a TTL.
			ancient := I("pk", "a", "sk", "1", "expires", Ni(int(time.Now().AddDate(-6, 0, 0).Unix())))
			c.Put(ancient)
			c.API.(Clock).Advance(time.Hour)
			c.ExpectTable(Items(ancient))
		}},
	}
}

func keySchemaString(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	return fmt.Sprint(joinComma(parts))
}

func joinComma(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

// listTables pages through ListTables.
func (c *C) listTables(limit *int32) []string {
	c.Helper()
	var names []string
	var start *string
	for calls := 0; ; calls++ {
		if calls > 10000 {
			c.Fatal("ListTables did not end")
		}
		out, err := c.API.ListTables(c.Ctx, &dynamodb.ListTablesInput{Limit: limit, ExclusiveStartTableName: start})
		c.OK(err)
		names = append(names, out.TableNames...)
		if out.LastEvaluatedTableName == nil {
			return names
		}
		start = out.LastEvaluatedTableName
	}
}
