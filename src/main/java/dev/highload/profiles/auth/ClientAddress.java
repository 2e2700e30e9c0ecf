package dev.highload.profiles.auth;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The key by which a client is throttled: the address the connection comes from (the
 * socket's peer, never a header the client can write). An IPv6 address is cut to its /64
 * network, which one client usually holds whole, so that it cannot step around the limit
 * by changing the low bits.
 */
final class ClientAddress {

	private ClientAddress() {
	}

	/**
	 * @param remoteAddress the socket's peer address as text
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
			// A literal address: no name lookup happens.
			InetAddress address = InetAddress.getByName(remoteAddress);
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
