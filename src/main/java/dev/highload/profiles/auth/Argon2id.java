package dev.highload.profiles.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * Argon2id in the PHC string format ({@code $argon2id$v=19$m=..,t=..,p=..$salt$hash},
 * Base64 without padding), the format Spring Security's {@code Argon2PasswordEncoder}
 * writes and reads, so hashes from either verify with the other.
 * <p>
 * Why not that encoder: it gives each hash a fresh 19 MiB of 1 KiB blocks. At the hashing
 * ceiling that is over a gigabyte per second of short-lived garbage, and the young
 * collections it forces (several a second, copying the blocks of the hashes in flight)
 * paused every request, reads included. Here each hashing thread keeps its own blocks and
 * reuses them from one hash to the next; a thread's blocks are never shared, so one
 * instance serves any number of threads.
 */
final class Argon2id {

	private static final Pattern ENCODED = Pattern
		.compile("\\$argon2id\\$v=19\\$m=(\\d{1,8}),t=(\\d{1,4}),p=(\\d{1,3})\\$([A-Za-z0-9+/]+)\\$([A-Za-z0-9+/]+)");

	private static final Base64.Encoder BASE64 = Base64.getEncoder().withoutPadding();

	private static final Base64.Decoder BASE64_DECODER = Base64.getDecoder();

	private final int saltBytes;

	private final int hashBytes;

	private final int memoryKib;

	private final int iterations;

	private final SecureRandom random = new SecureRandom();

	/** Each thread's blocks, reused by every hash it computes. */
	private final ThreadLocal<ThreadBlocks> blocks;

	Argon2id(int saltBytes, int hashBytes, int memoryKib, int iterations) {
		this.saltBytes = saltBytes;
		this.hashBytes = hashBytes;
		this.memoryKib = memoryKib;
		this.iterations = iterations;
		this.blocks = ThreadLocal.withInitial(() -> new ThreadBlocks(memoryKib));
	}

	/**
	 * @param password the raw password
	 * @return its PHC string with a new random salt
	 */
	String hash(CharSequence password) {
		byte[] salt = new byte[this.saltBytes];
		this.random.nextBytes(salt);
		byte[] hash = derive(password, salt, this.memoryKib, this.iterations, 1, this.hashBytes);
		return "$argon2id$v=19$m=" + this.memoryKib + ",t=" + this.iterations + ",p=1$" + BASE64.encodeToString(salt)
				+ "$" + BASE64.encodeToString(hash);
	}

	/**
	 * Verifies with the parameters stored in the hash, so hashes made with other costs
	 * keep verifying after the cost changes.
	 * @param password the raw password
	 * @param encoded a PHC string
	 * @return whether they match; {@code false} for anything that is not an Argon2id v19
	 * PHC string
	 */
	boolean matches(CharSequence password, String encoded) {
		if (encoded == null) {
			return false;
		}
		Matcher m = ENCODED.matcher(encoded);
		if (!m.matches()) {
			return false;
		}
		int memory = Integer.parseInt(m.group(1));
		int iterations = Integer.parseInt(m.group(2));
		int lanes = Integer.parseInt(m.group(3));
		byte[] salt;
		byte[] expected;
		try {
			salt = BASE64_DECODER.decode(m.group(4));
			expected = BASE64_DECODER.decode(m.group(5));
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
		// Bounds of the stored parameters: a tampered row must not make one verification
		// allocate gigabytes or run for minutes.
		if (lanes < 1 || memory < 8 * lanes || memory > 4 * this.memoryKib || iterations < 1
				|| iterations > 4 * this.iterations || expected.length < 4 || expected.length > 64) {
			return false;
		}
		byte[] actual = derive(password, salt, memory, iterations, lanes, expected.length);
		return MessageDigest.isEqual(expected, actual);
	}

	private byte[] derive(CharSequence password, byte[] salt, int memoryKib, int iterations, int lanes, int length) {
		Argon2Parameters.Builder parameters = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
			.withVersion(Argon2Parameters.ARGON2_VERSION_13)
			.withSalt(salt)
			.withMemoryAsKB(memoryKib)
			.withIterations(iterations)
			.withParallelism(lanes);
		if (memoryKib <= this.memoryKib) {
			parameters.withBlockPool(this.blocks.get());
		}
		Argon2BytesGenerator generator = new Argon2BytesGenerator();
		generator.init(parameters.build());
		byte[] out = new byte[length];
		char[] chars = password.toString().toCharArray();
		generator.generateBytes(chars, out);
		Arrays.fill(chars, '\0');
		return out;
	}

	/**
	 * A pool of 1 KiB blocks used by one thread only, so without the lock Bouncy Castle's
	 * {@code FixedBlockPool} takes on each of the tens of thousands of blocks a hash
	 * borrows and returns. Returned blocks are wiped, as that pool does, so no
	 * password-derived memory outlives its hash.
	 */
	private static final class ThreadBlocks implements Argon2BytesGenerator.BlockPool {

		private final Argon2BytesGenerator.Block[] free;

		private int size;

		ThreadBlocks(int capacity) {
			this.free = new Argon2BytesGenerator.Block[capacity];
		}

		@Override
		public Argon2BytesGenerator.Block allocate() {
			return (this.size > 0) ? this.free[--this.size] : new Argon2BytesGenerator.Block();
		}

		@Override
		public void deallocate(Argon2BytesGenerator.Block block) {
			block.clear();
			if (this.size < this.free.length) {
				this.free[this.size++] = block;
			}
		}

	}

}
