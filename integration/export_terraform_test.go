package integration_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/rynodb/rynodb/tables"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

const (
	goldenPrefix = "myapp"
	goldenKey    = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	goldenFile   = "testdata/tables.tf.golden"
)

// TestExportTerraform parses the Terraform export with HashiCorp's HCL parser and
// checks that every table, key, attribute, GSI and LSI, and every setting asked for,
// is that of tables.Definitions, with time to live on the entities table only; then
// compares it with testdata/tables.tf.golden
// (go test -run TestExportTerraform -update rewrites it) and, when terraform is
// installed, checks that terraform fmt leaves it as it is. What is not checked:
// terraform validate and plan need the AWS provider, which cannot be downloaded
// here, so the resources' schema is checked against the provider's documentation
// only, by this test's expectations.
func TestExportTerraform(t *testing.T) {
	isolateAWS(t)
	out, errOut, code := runRyno(t, "migrate", "export", "--prefix", goldenPrefix, "--format", "terraform",
		"--pitr", "--deletion-protection", "--sse", "kms", "--kms-key", goldenKey)
	require.Equal(t, 0, code, errOut)
	src := []byte(out)

	file, diags := hclparse.NewParser().ParseHCL(src, "tables.tf")
	require.False(t, diags.HasErrors(), "%s", diags)
	body := file.Body.(*hclsyntax.Body)
	require.Empty(t, body.Attributes)

	names, err := tables.NewNames(goldenPrefix)
	require.NoError(t, err)
	resources := map[string]*hclsyntax.Block{}
	outputs := map[string]hcl.Traversal{}
	for _, b := range body.Blocks {
		switch b.Type {
		case "resource":
			require.Len(t, b.Labels, 2)
			require.Equal(t, "aws_dynamodb_table", b.Labels[0])
			resources[hclStringAttr(t, b.Body, "name")] = b
		case "output":
			tr, diags := hcl.AbsTraversalForExpr(b.Body.Attributes["value"].Expr)
			require.False(t, diags.HasErrors(), "%s", diags)
			outputs[b.Labels[0]] = tr
		default:
			t.Fatalf("unexpected block %s", b.Type)
		}
	}

	defs := tables.Definitions(names, tables.Billing{})
	require.Len(t, resources, len(defs))
	for _, def := range defs {
		name := aws.ToString(def.TableName)
		b := resources[name]
		require.NotNil(t, b, "no resource for table %s", name)
		checkTerraformTable(t, b.Body, def.KeySchema, def.AttributeDefinitions)
		checkTerraformIndexes(t, b.Body, def.GlobalSecondaryIndexes, def.LocalSecondaryIndexes)

		require.Equal(t, "PAY_PER_REQUEST", hclStringAttr(t, b.Body, "billing_mode"))
		require.True(t, hclBoolAttr(t, b.Body, "deletion_protection_enabled"))
		require.True(t, hclBoolAttr(t, hclOnlyBlock(t, b.Body, "point_in_time_recovery").Body, "enabled"))
		sse := hclOnlyBlock(t, b.Body, "server_side_encryption").Body
		require.True(t, hclBoolAttr(t, sse, "enabled"))
		require.Equal(t, goldenKey, hclStringAttr(t, sse, "kms_key_arn"))
		checkTerraformTimeToLive(t, b.Body, name == names.Entities)

		id := b.Labels[1]
		for _, attr := range []string{"name", "arn"} {
			tr := outputs[id+"_table_"+attr]
			require.Len(t, tr, 3, "output %s_table_%s", id, attr)
			require.Equal(t, "aws_dynamodb_table", tr.RootName())
			require.Equal(t, id, tr[1].(hcl.TraverseAttr).Name)
			require.Equal(t, attr, tr[2].(hcl.TraverseAttr).Name)
		}
	}
	require.Len(t, outputs, 2*len(defs))

	compareGolden(t, goldenFile, src)
	checkTerraformFmt(t, src)
}

func checkTerraformTable(t *testing.T, body *hclsyntax.Body, keys []types.KeySchemaElement, attrs []types.AttributeDefinition) {
	t.Helper()
	require.Equal(t, keyAttribute(keys, types.KeyTypeHash), hclStringAttr(t, body, "hash_key"))
	require.Equal(t, keyAttribute(keys, types.KeyTypeRange), hclStringAttr(t, body, "range_key"))
	var got []types.AttributeDefinition
	for _, b := range hclBlocks(body, "attribute") {
		got = append(got, types.AttributeDefinition{
			AttributeName: aws.String(hclStringAttr(t, b.Body, "name")),
			AttributeType: types.ScalarAttributeType(hclStringAttr(t, b.Body, "type")),
		})
	}
	require.Equal(t, attrs, got)
}

// checkTerraformTimeToLive checks that body has a ttl block on _expires when want,
// and none otherwise.
func checkTerraformTimeToLive(t *testing.T, body *hclsyntax.Body, want bool) {
	t.Helper()
	if !want {
		require.Empty(t, hclBlocks(body, "ttl"))
		return
	}
	ttl := hclOnlyBlock(t, body, "ttl").Body
	require.Equal(t, "_expires", hclStringAttr(t, ttl, "attribute_name"))
	require.True(t, hclBoolAttr(t, ttl, "enabled"))
}

func checkTerraformIndexes(t *testing.T, body *hclsyntax.Body, gsis []types.GlobalSecondaryIndex, lsis []types.LocalSecondaryIndex) {
	t.Helper()
	gotGSIs := hclBlocks(body, "global_secondary_index")
	require.Len(t, gotGSIs, len(gsis))
	for i, g := range gsis {
		b := gotGSIs[i].Body
		require.Equal(t, aws.ToString(g.IndexName), hclStringAttr(t, b, "name"))
		require.Equal(t, keyAttribute(g.KeySchema, types.KeyTypeHash), hclStringAttr(t, b, "hash_key"))
		require.Equal(t, keyAttribute(g.KeySchema, types.KeyTypeRange), hclStringAttr(t, b, "range_key"))
		require.Equal(t, string(g.Projection.ProjectionType), hclStringAttr(t, b, "projection_type"))
		require.Nil(t, b.Attributes["non_key_attributes"])
	}
	gotLSIs := hclBlocks(body, "local_secondary_index")
	require.Len(t, gotLSIs, len(lsis))
	for i, l := range lsis {
		b := gotLSIs[i].Body
		require.Equal(t, aws.ToString(l.IndexName), hclStringAttr(t, b, "name"))
		require.Equal(t, keyAttribute(l.KeySchema, types.KeyTypeRange), hclStringAttr(t, b, "range_key"))
		require.Equal(t, string(l.Projection.ProjectionType), hclStringAttr(t, b, "projection_type"))
		require.Nil(t, b.Attributes["hash_key"], "an LSI shares its table's partition key")
	}
}

func keyAttribute(keys []types.KeySchemaElement, kt types.KeyType) string {
	for _, k := range keys {
		if k.KeyType == kt {
			return aws.ToString(k.AttributeName)
		}
	}
	return ""
}

func hclBlocks(body *hclsyntax.Body, typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range body.Blocks {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

func hclOnlyBlock(t *testing.T, body *hclsyntax.Body, typ string) *hclsyntax.Block {
	t.Helper()
	bs := hclBlocks(body, typ)
	require.Len(t, bs, 1, "blocks %s", typ)
	return bs[0]
}

// hclAttrValue evaluates a literal attribute: the resources hold no references.
func hclAttrValue(t *testing.T, body *hclsyntax.Body, name string) cty.Value {
	t.Helper()
	a := body.Attributes[name]
	require.NotNil(t, a, "no attribute %s", name)
	v, diags := a.Expr.Value(nil)
	require.False(t, diags.HasErrors(), "%s: %s", name, diags)
	return v
}

func hclStringAttr(t *testing.T, body *hclsyntax.Body, name string) string {
	t.Helper()
	v := hclAttrValue(t, body, name)
	require.Equal(t, cty.String, v.Type(), name)
	return v.AsString()
}

func hclBoolAttr(t *testing.T, body *hclsyntax.Body, name string) bool {
	t.Helper()
	v := hclAttrValue(t, body, name)
	require.Equal(t, cty.Bool, v.Type(), name)
	return v.True()
}

// compareGolden compares got with the golden file path, or rewrites it with -update.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		t.Logf("rewrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run %s -update to write it", t.Name())
	if !bytes.Equal(want, got) {
		t.Errorf("the export differs from %s (go test -run %s -update rewrites it):\n%s", path, t.Name(), got)
	}
}

// checkTerraformFmt runs terraform fmt -check on src when terraform is installed.
func checkTerraformFmt(t *testing.T, src []byte) {
	t.Helper()
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Log("terraform is not installed: the layout is checked against the golden file only, not by terraform fmt")
		return
	}
	path := filepath.Join(t.TempDir(), "tables.tf")
	require.NoError(t, os.WriteFile(path, src, 0o600))
	out, err := exec.Command(bin, "fmt", "-check", "-diff", path).CombinedOutput()
	require.NoError(t, err, "terraform fmt would change the export:\n%s", out)
	t.Log("terraform fmt -check passed; terraform validate and plan are not run: they need the AWS provider, which cannot be downloaded here")
}
