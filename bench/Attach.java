import com.sun.tools.attach.VirtualMachine;

/**
 * Loads a native agent into a running JVM with its options: {@code java bench/Attach.java PID
 * LIBRARY OPTIONS}. bench/profile-get.py sends async-profiler its commands this way, because
 * {@code jcmd PID JVMTI.agent_load} splits options that hold {@code =} as its own arguments.
 */
public class Attach {

	public static void main(String[] args) throws Exception {
		if (args.length != 3) {
			System.err.println("usage: java bench/Attach.java PID LIBRARY OPTIONS");
			System.exit(2);
		}
		VirtualMachine vm = VirtualMachine.attach(args[0]);
		try {
			vm.loadAgentPath(args[1], args[2]);
		}
		finally {
			vm.detach();
		}
	}

}
