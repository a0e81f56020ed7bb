select  "givenName" ,[familyName], `nickname`
  from Contact /* people */ where givenName <> 'O''Brien';