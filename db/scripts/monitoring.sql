-- The primary's view of its standbys, for the service's health details and replication
-- metrics, without making the runtime role a member of pg_read_all_stats (which would let it
-- read every session's query text and every statistic of the cluster). pg_stat_replication
-- shows the walsenders' columns only to that role's members; this function, owned by the
-- superuser that runs this file and executed with its rights, returns the five columns the
-- service reads and nothing else. The runtime role is granted USAGE on the schema and EXECUTE
-- on the function by whoever runs this file (db/scripts/monitoring.sh in the compose
-- deployments, cluster/EmbeddedCluster in the local run). Idempotent: run at every start.
CREATE SCHEMA IF NOT EXISTS monitoring;
REVOKE ALL ON SCHEMA monitoring FROM PUBLIC;
CREATE OR REPLACE FUNCTION monitoring.standbys(OUT application_name text, OUT state text, OUT sync_state text,
		OUT replay_lsn pg_lsn, OUT replay_lag interval)
	RETURNS SETOF record
	LANGUAGE sql STABLE SECURITY DEFINER
	-- A definer's function names nothing a caller could shadow.
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT r.application_name, r.state, r.sync_state::text, r.replay_lsn, r.replay_lag
FROM pg_catalog.pg_stat_replication AS r
$$;
REVOKE ALL ON FUNCTION monitoring.standbys() FROM PUBLIC;
