// Package tables names a RynoDB store's DynamoDB tables and gives their CreateTable
// definitions, for provisioning them outside `ryno migrate` (CloudFormation,
// Terraform, CDK) or inspecting them.
//
// A store with prefix "app" uses these tables and indexes:
//
//	app_entities_master         _id / _scope_type_key
//	  app_entities_by_type      GSI _scope_type_key / _updated
//	app_relationship_entries    _subject_key / _predicate_key
//	  app_incoming_relationships GSI _object_key / _reverse_key
//	  app_relationships_by_object LSI _subject_key / _predicate_object_key
//	app_index_entries           _subject_key / _unique_key
//	  app_index_lookup          GSI _scope_index_name / _index_key
//
// It also defines, once, the errors that every package of the module returns and
// the machinery under them raises: a *ValidationError for bad input, a *CallError
// saying what a call was doing, a *BatchError, a *TableNotFoundError and a
// *TransactionLimitError; and the CallReport of what each call cost, with its
// Capacity. Package ryno names all but CallError again (ryno.BatchError is
// BatchError), so that a caller of ryno alone need not import this package.
//
// The package performs no I/O and imports no other package of the module.
package tables
