package dev.highload.profiles.cluster;

/** The configuration files every node of the embedded cluster shares. */
final class ClusterSettings {

	private ClusterSettings() {
	}

	static String postgresqlConf(ClusterProperties properties) {
		return """

				# ---- embedded cluster ----
				listen_addresses = '127.0.0.1'
				unix_socket_directories = ''
				max_connections = 200
				shared_buffers = '%s'
				wal_level = replica
				max_wal_senders = 10
				max_replication_slots = 10
				# A replica that stays down must not fill the disk with retained WAL.
				max_slot_wal_keep_size = '4GB'
				hot_standby = on
				hot_standby_feedback = on
				# Lets pg_rewind turn a failed primary into a replica.
				wal_log_hints = on
				fsync = on
				# Durable on the primary and visible on at least one replica before a commit returns.
				# The primary's node.conf names its standbys (ANY 1 over the other nodes), so the
				# setting follows a failover; this line is only the bootstrap's layout.
				synchronous_standby_names = 'ANY 1 (%s, %s)'
				synchronous_commit = remote_apply
				shared_preload_libraries = 'pg_stat_statements'
				password_encryption = 'scram-sha-256'
				log_line_prefix = '%%m [%%p] %%q%%u@%%d '
				log_checkpoints = off
				include_if_exists = '%s'
				""".formatted(properties.sharedBuffers(), EmbeddedCluster.REPLICA1, EmbeddedCluster.REPLICA2,
				PostgresNode.NODE_CONF);
	}

	static String pgHba() {
		return """
				# TYPE  DATABASE     USER        ADDRESS        METHOD
				host    all          all         127.0.0.1/32   scram-sha-256
				host    all          all         ::1/128        scram-sha-256
				host    replication  replicator  127.0.0.1/32   scram-sha-256
				host    replication  replicator  ::1/128        scram-sha-256
				""";
	}

}
