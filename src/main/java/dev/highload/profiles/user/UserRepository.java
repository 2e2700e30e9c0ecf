package dev.highload.profiles.user;

import java.util.Optional;
import java.util.UUID;

import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;

interface UserRepository extends Repository<User, UUID> {

	User save(User user);

	@Query("select u.passwordHash from User u where u.id = :id")
	Optional<String> findPasswordHashById(UUID id);

}
