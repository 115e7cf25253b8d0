# Sourced by the scripts that run a program against DynamoDB Local. It sets
# endpoint to RYNO_DYNAMODB_ENDPOINT, or to a throwaway container it starts, and
# exports the credentials and region DynamoDB Local is used with. The caller's
# EXIT trap must call stop_local_endpoint.

container=
stop_local_endpoint() {
	if [ -n "$container" ]; then scripts/dynamodb-local.sh stop "$container"; fi
}

endpoint=${RYNO_DYNAMODB_ENDPOINT:-}
if [ -z "$endpoint" ]; then
	read -r container endpoint < <(scripts/dynamodb-local.sh start)
fi

# DynamoDB Local accepts any credentials but keeps data per access key and region.
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-local}
export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-local}
export AWS_REGION=${AWS_REGION:-us-east-1}
