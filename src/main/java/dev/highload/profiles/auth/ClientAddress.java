package dev.highload.profiles.auth;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The key by which a client is throttled: {@code HttpServletRequest.getRemoteAddr()}, the
 * address the connection comes from, never a header the client can write. Only Tomcat's
 * {@code RemoteIpValve} may replace it with a forwarded address, and only for connections
 * from the proxy that {@code server.tomcat.remoteip.internal-proxies} names (off by
 * default; {@link ThrottleProperties}). An IPv6 address is cut to its /64 network, which
 * one client usually holds whole, so that it cannot step around the limit by changing the
 * low bits.
 */
final class ClientAddress {

	private ClientAddress() {
	}

	/**
	 * @param remoteAddress the client's address as text ({@code getRemoteAddr()})
	 * @return the throttling key
	 */
	static String key(String remoteAddress) {
		if (remoteAddress == null || remoteAddress.isEmpty()) {
			return "unknown";
		}
		if (remoteAddress.indexOf(':') < 0) {
			return remoteAddress;
		}
		try {
			// In brackets, getByName parses an IPv6 literal or fails: it never looks up
			// a name. Bare, a text with a colon that does not begin with a hex digit
			// ("x:1", which a trusted proxy could forward) was looked up as a host
			// name, on the request thread.
			InetAddress address = InetAddress.getByName("[" + remoteAddress + "]");
			if (address instanceof Inet6Address) {
				byte[] bytes = address.getAddress();
				for (int i = 8; i < 16; i++) {
					bytes[i] = 0;
				}
				return InetAddress.getByAddress(bytes).getHostAddress() + "/64";
			}
			return address.getHostAddress();
		}
		catch (UnknownHostException ex) {
			return remoteAddress;
		}
	}

}
