package dev.highload.profiles.auth;

/**
 * Who asks to log in, as the connection and the cookies say it: Spring MVC gives a login
 * handler this as a parameter ({@link LoginClients}).
 *
 * @param address the address the connection comes from ({@link ClientAddress})
 * @param deviceCookie the {@value DeviceCookies#COOKIE} cookie's value as the client sent
 * it ({@link DeviceCookies#of}), or {@code null}
 * @param secure whether the client came over HTTPS: the new device cookie is then Secure
 */
record LoginClient(String address, String deviceCookie, boolean secure) {

}
