package tables_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/rynodb/rynodb/tables"
)

func ExampleDefinitions() {
	names, err := tables.NewNames("app")
	if err != nil {
		panic(err)
	}
	for _, def := range tables.Definitions(names, tables.Billing{}) {
		fmt.Println(aws.ToString(def.TableName), len(def.GlobalSecondaryIndexes), "GSI", len(def.LocalSecondaryIndexes), "LSI")
	}
	// Output:
	// app_entities_master 4 GSI 0 LSI
	// app_relationship_entries 2 GSI 1 LSI
	// app_index_entries 1 GSI 0 LSI
}

func ExampleNewNames() {
	_, err := tables.NewNames("my app")
	fmt.Println(err)
	// Output:
	// ryno: invalid TablePrefix "my app": has ' ' at byte 2; only letters, digits, '_', '.' and '-' are allowed
}
