package dev.highload.profiles.user;

import java.util.UUID;

import org.springframework.data.repository.Repository;

interface UserRepository extends Repository<User, UUID> {

	User save(User user);

}
