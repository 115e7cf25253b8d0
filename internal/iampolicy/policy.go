package iampolicy

import (
	"slices"
	"strings"

	"github.com/rynodb/rynodb/internal/errs"
)

// Document is an IAM policy document.
type Document struct {
	Version   string      `json:"Version"`
	Statement []Statement `json:"Statement"`
}

// Statement is one statement of a Document; Policy writes only Allow statements.
type Statement struct {
	Sid      string   `json:"Sid"`
	Effect   string   `json:"Effect"`
	Action   []string `json:"Action"`
	Resource []string `json:"Resource"`
}

// Resources are the tables and indexes a policy grants access to.
type Resources struct {
	// Region and Account fill the ARNs; "*" stands for any when empty.
	Region  string
	Account string

	Tables  []string
	Indexes []Index
}

// Index names a secondary index of a table.
type Index struct {
	Table string
	Name  string
}

// TableARN returns the ARN of table name.
func (r Resources) TableARN(name string) string {
	return "arn:" + partition(r.Region) + ":dynamodb:" + orAny(r.Region) + ":" + orAny(r.Account) + ":table/" + name
}

// IndexARN returns the ARN of index ix.
func (r Resources) IndexARN(ix Index) string {
	return r.TableARN(ix.Table) + "/index/" + ix.Name
}

func orAny(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// partition returns the AWS partition of region: the ARNs of China and GovCloud
// regions start otherwise.
func partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// statementSids name the statements by access, in the order written.
var statementSids = []struct {
	access access
	sid    string
}{
	{read, "ReadTables"},
	{write, "WriteItems"},
	{manage, "ManageTables"},
}

// Policy returns the policy that allows exactly the IAM actions that authorize the
// DynamoDB operations ops, on the tables and indexes of r: one statement per kind of
// access (ReadTables, WriteItems, ManageTables) on the tables, and QueryIndexes on
// the indexes when ops include Query. An operation without a mapping is an error:
// granting it nothing would fail at run time.
func Policy(ops []string, r Resources) (Document, error) {
	byAccess := map[access][]string{}
	for _, op := range ops {
		actions, ok := operationActions[op]
		if !ok {
			return Document{}, errs.New("no IAM actions known for DynamoDB operation %s", op)
		}
		for _, a := range actions {
			byAccess[actionAccess[a]] = append(byAccess[actionAccess[a]], a)
		}
	}
	tables := make([]string, len(r.Tables))
	for i, t := range r.Tables {
		tables[i] = r.TableARN(t)
	}
	doc := Document{Version: "2012-10-17"}
	for _, s := range statementSids {
		if actions := byAccess[s.access]; len(actions) > 0 {
			doc.Statement = append(doc.Statement, allow(s.sid, actions, tables))
		}
		if s.access == read {
			doc.Statement = append(doc.Statement, indexStatement(byAccess[read], r)...)
		}
	}
	return doc, nil
}

// indexStatement returns the statement granting the index actions among granted on
// r's indexes, or none.
func indexStatement(granted []string, r Resources) []Statement {
	var actions []string
	for _, a := range indexActions {
		if slices.Contains(granted, a) {
			actions = append(actions, a)
		}
	}
	if len(actions) == 0 || len(r.Indexes) == 0 {
		return nil
	}
	arns := make([]string, len(r.Indexes))
	for i, ix := range r.Indexes {
		arns[i] = r.IndexARN(ix)
	}
	return []Statement{allow("QueryIndexes", actions, arns)}
}

func allow(sid string, actions, resources []string) Statement {
	return Statement{Sid: sid, Effect: "Allow", Action: slices.Compact(slices.Sorted(slices.Values(actions))), Resource: resources}
}
