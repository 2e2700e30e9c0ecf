# Sourced by the scripts of this directory: secrets from files, as the official postgres
# image's entrypoint reads them. "file_env VAR" takes VAR from the file named by VAR_FILE
# (Compose and Docker secrets: VAR_FILE=/run/secrets/...), trailing newlines removed, and
# exports it; VAR itself may be given instead, never both. "file_env VAR required" fails
# when neither is set. VAR_FILE is unset afterwards, so a script run by a script that has
# already resolved VAR (primary.sh, then init-primary.sh) finds VAR and nothing else.
file_env() {
	local var=$1 requirement=${2:-optional}
	local file_var="${var}_FILE"
	if [ -n "${!var:-}" ] && [ -n "${!file_var:-}" ]; then
		echo "$(basename "$0"): both $var and $file_var are set; set only one of them" >&2
		exit 1
	fi
	if [ -n "${!file_var:-}" ]; then
		local file=${!file_var}
		if [ ! -r "$file" ]; then
			echo "$(basename "$0"): $file_var names $file, which is missing or not readable by user $(id -un)" >&2
			exit 1
		fi
		local value
		value=$(<"$file")
		if [ -z "$value" ]; then
			echo "$(basename "$0"): $file_var names $file, which is empty" >&2
			exit 1
		fi
		export "$var=$value"
		unset "$file_var"
	fi
	if [ "$requirement" = required ] && [ -z "${!var:-}" ]; then
		echo "$(basename "$0"): $var is required: set it, or $file_var to a file that holds it" >&2
		exit 1
	fi
	return 0
}
